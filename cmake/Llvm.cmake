# LLVM 19 from Debian (llvm-19-dev). We link the one shared libLLVM so links stay fast.
# LLVM's version file wants major.minor to match, so ask for 19 by checking the major version.
find_package(LLVM REQUIRED CONFIG PATHS /usr/lib/llvm-19/lib/cmake/llvm NO_DEFAULT_PATH)
if(NOT LLVM_VERSION_MAJOR EQUAL 19)
  message(FATAL_ERROR "kern needs LLVM 19 (llvm-19-dev); found ${LLVM_PACKAGE_VERSION}")
endif()
message(STATUS "LLVM ${LLVM_PACKAGE_VERSION} in ${LLVM_LIBRARY_DIR}")
add_library(kern_llvm INTERFACE)
target_include_directories(kern_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
target_compile_definitions(kern_llvm INTERFACE ${LLVM_DEFINITIONS})
find_library(KERN_LIBLLVM NAMES LLVM-19 LLVM PATHS ${LLVM_LIBRARY_DIR} NO_DEFAULT_PATH REQUIRED)
target_link_libraries(kern_llvm INTERFACE ${KERN_LIBLLVM})
