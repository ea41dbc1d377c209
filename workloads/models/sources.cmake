# Sources of the models part of vgsim::workloads, relative to workloads/ (explicit list, no globbing).
set(VGSIM_MODELS_SOURCES
  models/model.cpp
  models/model_library.cpp
  models/training_settings.cpp
  models/compute_model.cpp
  models/cpu_compute_model.cpp
  models/bucketing.cpp
  models/transformer_shape.cpp
  models/parallel_plan.cpp
  models/transformer_compute.cpp
  models/moe.cpp
  models/pipeline_schedule.cpp
  models/model_memory.cpp
)
# Where load_model() finds workloads/models/*.json when VGSIM_DATA_DIR is not set in the environment.
set_source_files_properties(models/model_library.cpp PROPERTIES
  COMPILE_DEFINITIONS "VGSIM_MODELS_DEFAULT_DATA_DIR=\"${PROJECT_SOURCE_DIR}\"")
# Where load_transformer_shapes() finds workloads/llm/transformer_shapes.json when VGSIM_DATA_DIR is not set.
set_source_files_properties(models/transformer_shape.cpp PROPERTIES
  COMPILE_DEFINITIONS "VGSIM_LLM_DEFAULT_DATA_DIR=\"${PROJECT_SOURCE_DIR}\"")
