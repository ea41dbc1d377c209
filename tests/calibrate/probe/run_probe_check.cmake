# Runs vgsim-probe in one of four modes and checks its exit status, stderr/stdout and output file (cmake -P script).
#   no_gpu:    exit 3, stderr names "no CUDA GPU visible", no output file created.
#   help:      exit 0, stdout lists every documented option.
#   bad_plan:  exit 2, stderr names the plan's JSON path ($.collectives.ops) and suggests 'allreduce'; no file.
#   gpu_smoke: (LABELS gpu) exit 0; first line is the environment record; allreduce lines have "wrong":0.
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(out "${WORK_DIR}/probe.jsonl")

macro(expect cond message)
  if(NOT (${cond}))
    message(FATAL_ERROR "${MODE}: ${message}\nexit=${rc}\nstdout:\n${so}\nstderr:\n${se}")
  endif()
endmacro()

if(MODE STREQUAL "no_gpu")
  execute_process(COMMAND "${PROBE}" --out "${out}" --max 1M
                  RESULT_VARIABLE rc OUTPUT_VARIABLE so ERROR_VARIABLE se WORKING_DIRECTORY "${WORK_DIR}")
  expect("rc EQUAL 3" "expected exit status 3 (no GPU)")
  string(FIND "${se}" "no CUDA GPU visible" pos)
  expect("pos GREATER -1" "stderr lacks 'no CUDA GPU visible'")
  string(FIND "${se}" "mpirun -np 8 -N 4 vgsim-probe --out probe.jsonl" pos)
  expect("pos GREATER -1" "stderr lacks the example command")
  expect("NOT EXISTS \"${out}\"" "an output file was created")
  file(GLOB left "${WORK_DIR}/*")
  expect("\"${left}\" STREQUAL \"\"" "files were created in the working directory: ${left}")
elseif(MODE STREQUAL "help")
  execute_process(COMMAND "${PROBE}" --help RESULT_VARIABLE rc OUTPUT_VARIABLE so ERROR_VARIABLE se)
  expect("rc EQUAL 0" "expected exit status 0 for --help")
  foreach(opt --plan --out --min --max --factor --iters --warmup --ops --no-sweep-algos --timeout)
    string(FIND "${so}" "${opt}" pos)
    expect("pos GREATER -1" "--help does not list ${opt}")
  endforeach()
elseif(MODE STREQUAL "bad_plan")
  execute_process(COMMAND "${PROBE}" --plan "${PLAN}" --out "${out}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE so ERROR_VARIABLE se WORKING_DIRECTORY "${WORK_DIR}")
  expect("rc EQUAL 2" "expected exit status 2 (bad plan)")
  string(FIND "${se}" "$.collectives.ops" pos)
  expect("pos GREATER -1" "stderr does not name the JSON path $.collectives.ops")
  string(FIND "${se}" "did you mean 'allreduce'" pos)
  expect("pos GREATER -1" "stderr does not suggest 'allreduce'")
  expect("NOT EXISTS \"${out}\"" "an output file was created")
elseif(MODE STREQUAL "gpu_smoke")
  execute_process(COMMAND "${PROBE}" --out "${out}" --min 1K --max 1M --factor 16 --iters 5 --warmup 2
                          --ops allreduce,allgather --no-sweep-algos --no-copies
                  RESULT_VARIABLE rc OUTPUT_VARIABLE so ERROR_VARIABLE se WORKING_DIRECTORY "${WORK_DIR}")
  expect("rc EQUAL 0" "expected exit status 0 on a GPU machine")
  file(STRINGS "${out}" lines)
  list(GET lines 0 first)
  string(FIND "${first}" "\"kind\":\"environment\"" pos)
  expect("pos EQUAL 1" "the first line is not the environment record")
  # Sizes 1K, 16K, 256K per op (factor 16 up to 1M = 1K x 16^2 ... 1M is 1K x 1024, so 1K, 16K, 256K): 3 per op.
  set(n 0)
  foreach(line IN LISTS lines)
    if(line MATCHES "\"kind\":\"collective\"")
      math(EXPR n "${n} + 1")
      expect("line MATCHES \"\\\"wrong\\\":0,\"" "a collective result was wrong: ${line}")
    endif()
  endforeach()
  expect("n EQUAL 6" "expected 6 collective records (2 ops x 3 sizes), got ${n}")
else()
  message(FATAL_ERROR "unknown MODE '${MODE}'")
endif()
