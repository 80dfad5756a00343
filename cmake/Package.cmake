# Packaging for embedders: the shared library libkern.so and the static libkern.a, each
# carrying every layer, the public headers, the kern binary, a relocatable CMake package
# (find_package(kern) -> kern::kern, the shared library, and kern::kern_static; it finds LLVM,
# the ANTLR runtime and Boost.Context with find_dependency) and pkg-config files (kern.pc for
# the shared library, kern-static.pc for the static one).
#
# Why one merged archive: an embedder links one library and its shared dependencies (libLLVM,
# antlr4-runtime, boost_context, libseccomp) instead of five layer archives in the right order.
# The shared library is that archive linked whole.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(KERN_LAYERS kern_engine kern_runtime kern_backend kern_ir kern_frontend)
set(KERN_COMBINED ${CMAKE_BINARY_DIR}/libkern.a)
set(mri "create ${KERN_COMBINED}\n")
foreach(layer ${KERN_LAYERS})
  string(APPEND mri "addlib $<TARGET_FILE:${layer}>\n")
endforeach()
string(APPEND mri "save\nend\n")
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/kern_combine.mri CONTENT "${mri}")
add_custom_command(
  OUTPUT ${KERN_COMBINED}
  COMMAND ${CMAKE_COMMAND} -E remove -f ${KERN_COMBINED}
  COMMAND ${CMAKE_AR} -M < ${CMAKE_BINARY_DIR}/kern_combine.mri
  DEPENDS ${KERN_LAYERS} ${CMAKE_BINARY_DIR}/kern_combine.mri
  COMMENT "Combining the layers into libkern.a"
  VERBATIM)
add_custom_target(kern_combined ALL DEPENDS ${KERN_COMBINED})

# libkern.so.0.1.0: every object of libkern.a (the layers are position-independent), linked
# against the same dependencies, with nothing left undefined.
add_library(kern_shared SHARED ${CMAKE_CURRENT_SOURCE_DIR}/cmake/shared_library.cpp)
add_dependencies(kern_shared kern_combined)
set_target_properties(kern_shared PROPERTIES OUTPUT_NAME kern VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR} LINK_DEPENDS ${KERN_COMBINED})

# What libkern.a needs at link time, as absolute paths (the package is for this machine's
# toolchain: the same LLVM, ANTLR and Boost the library was built against).
get_target_property(KERN_ANTLR_LIB antlr4_shared IMPORTED_LOCATION)
if(NOT KERN_ANTLR_LIB)
  get_target_property(KERN_ANTLR_LIB antlr4_shared IMPORTED_LOCATION_RELEASE)
endif()
if(NOT KERN_ANTLR_LIB)
  get_target_property(KERN_ANTLR_LIB antlr4_shared IMPORTED_LOCATION_NONE)
endif()
find_library(KERN_BOOST_CONTEXT_LIB NAMES boost_context REQUIRED)
set(KERN_LINK_DEPS ${KERN_LIBLLVM} ${KERN_ANTLR_LIB} ${KERN_BOOST_CONTEXT_LIB})
if(SECCOMP_FOUND) # the sandbox's system-call filter (engine/sandbox_confine.cpp)
  list(APPEND KERN_LINK_DEPS ${SECCOMP_LINK_LIBRARIES})
endif()
target_link_libraries(kern_shared PRIVATE -Wl,--whole-archive ${KERN_COMBINED}
                      -Wl,--no-whole-archive ${KERN_LINK_DEPS} Threads::Threads dl)
kern_set_options(kern_shared)
if(NOT KERN_SANITIZE AND NOT KERN_FUZZ) # (the sanitizers' runtimes come with the executable)
  target_link_options(kern_shared PRIVATE -Wl,--no-undefined)
endif()

# The build tree's kern::kern and kern::kern_static (samples/embed uses them as an installed
# kern's): the shared library, and the layers.
add_library(kern::kern ALIAS kern_shared)
add_library(kern::kern_static ALIAS kern_engine)

install(FILES ${KERN_COMBINED} DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS kern_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES include/kern/kern.hpp include/kern/kern.h include/kern/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kern)
install(TARGETS kern RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The package's find_dependency calls: where this build found LLVM (a hint; LLVM's own
# package finds the rest), and whether the library needs libseccomp.
set(KERN_LLVM_DIR ${LLVM_DIR})
set(KERN_NEEDS_SECCOMP ${SECCOMP_FOUND})
if(NOT KERN_NEEDS_SECCOMP)
  set(KERN_NEEDS_SECCOMP 0)
endif()

configure_package_config_file(cmake/kernConfig.cmake.in ${CMAKE_BINARY_DIR}/kernConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kern)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/kernConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/kernConfig.cmake ${CMAKE_BINARY_DIR}/kernConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kern)

string(REPLACE ";" " " KERN_PC_LIBS "${KERN_LINK_DEPS}")
configure_file(cmake/kern.pc.in ${CMAKE_BINARY_DIR}/kern.pc @ONLY)
configure_file(cmake/kern-static.pc.in ${CMAKE_BINARY_DIR}/kern-static.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/kern.pc ${CMAKE_BINARY_DIR}/kern-static.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
