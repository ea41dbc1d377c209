# Lists a Catch2 v2 executable's test cases and writes one CTest test per case (run by vgsim_add_test in
# tests/CMakeLists.txt after each link, `cmake -P`). Catch.cmake's own script splits the listing as a CMake list, so a
# case whose name holds ';' became two tests and one that starts with '-' or holds '"' selected nothing; here lines
# are cut one by one and every character that Catch2's test-spec parser or its command line treats specially is
# escaped with '\'. OUT holds one `vgsim_case(<test name> <executable> <escaped name>)` per case; the CTest file that
# vgsim_add_test writes at configure time defines vgsim_case (add_test with the executable's properties) and includes
# OUT, so a property changed in CMake applies without relinking.
# A case tagged [nosan] also gets the CTest label "nosan": the sanitizer pass of .ci/run leaves it out because what it
# covers runs there in a smaller case (tests/README.md says which, case by case).
# Input: EXE, NAME (the test names' prefix "<NAME>/"), OUT.
cmake_minimum_required(VERSION 3.20)
execute_process(COMMAND "${EXE}" --list-test-names-only OUTPUT_VARIABLE listing RESULT_VARIABLE status)
if(NOT status MATCHES "^[0-9]+$")
  message(FATAL_ERROR "${EXE} --list-test-names-only failed: ${status}")
endif()

# The name as one Catch2 test spec: '\' before each of \ , [ ] " ~ * # - (a name is then matched literally).
function(catch_spec out name)
  set(spec "")
  string(LENGTH "${name}" n)
  set(i 0)
  while(i LESS n)
    string(SUBSTRING "${name}" ${i} 1 c)
    string(FIND "\\,[]\"~*#-" "${c}" special)
    if(NOT special EQUAL -1)
      string(APPEND spec "\\")
    endif()
    string(APPEND spec "${c}")
    math(EXPR i "${i} + 1")
  endwhile()
  set(${out} "${spec}" PARENT_SCOPE)
endfunction()

# The names of the [nosan] cases, one per line (an executable without such cases lists none).
execute_process(COMMAND "${EXE}" "[nosan]" --list-test-names-only OUTPUT_VARIABLE nosan_listing)
string(REGEX REPLACE "\r" "" nosan_listing "${nosan_listing}")
set(nosan_listing "\n${nosan_listing}\n")

set(script "")
set(rest "${listing}")
while(NOT rest STREQUAL "")
  string(FIND "${rest}" "\n" nl)
  if(nl EQUAL -1)
    set(line "${rest}")
    set(rest "")
  else()
    string(SUBSTRING "${rest}" 0 ${nl} line)
    math(EXPR next "${nl} + 1")
    string(SUBSTRING "${rest}" ${next} -1 rest)
  endif()
  string(REGEX REPLACE "\r$" "" line "${line}")
  if(line STREQUAL "")
    continue()
  endif()
  if(line MATCHES "]==]")
    message(FATAL_ERROR "${EXE}: test case name '${line}' cannot be registered (holds ]==])")
  endif()
  catch_spec(spec "${line}")
  set(extra "")
  string(FIND "${nosan_listing}" "\n${line}\n" tagged)
  if(NOT tagged EQUAL -1)
    set(extra " nosan")
  endif()
  string(APPEND script "vgsim_case([==[${NAME}/${line}]==] [==[${EXE}]==] [==[${spec}]==]${extra})\n")
endwhile()
file(WRITE "${OUT}" "${script}")
