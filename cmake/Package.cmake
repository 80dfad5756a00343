# Packaging for embedders: one static libkern.a that carries every layer, the public headers,
# the kern binary, a CMake package (find_package(kern) -> kern::kern) and kern.pc.
#
# Why one merged archive: an embedder links one library and its three shared dependencies
# (libLLVM, antlr4-runtime, boost_context) instead of five layer archives in the right order.
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

install(FILES ${KERN_COMBINED} DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES include/kern/kern.hpp include/kern/kern.h include/kern/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kern)
install(TARGETS kern RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

configure_package_config_file(cmake/kernConfig.cmake.in ${CMAKE_BINARY_DIR}/kernConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kern)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/kernConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/kernConfig.cmake ${CMAKE_BINARY_DIR}/kernConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kern)

string(REPLACE ";" " " KERN_PC_LIBS "${KERN_LINK_DEPS}")
configure_file(cmake/kern.pc.in ${CMAKE_BINARY_DIR}/kern.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/kern.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
