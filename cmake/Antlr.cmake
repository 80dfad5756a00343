# ANTLR 4: the Debian 4.7.2 tool generates the parser at build time; the 4.9 runtime runs it.
find_package(antlr4-runtime REQUIRED CONFIG)
find_program(KERN_ANTLR4 NAMES antlr4 REQUIRED)

# kern_antlr_generate(<grammar> <outdir> <outvar>): C++ parser and visitor for <grammar>.
function(kern_antlr_generate grammar outdir outvar)
  get_filename_component(name ${grammar} NAME_WE)
  set(outputs
    ${outdir}/${name}Lexer.cpp ${outdir}/${name}Lexer.h
    ${outdir}/${name}Parser.cpp ${outdir}/${name}Parser.h
    ${outdir}/${name}Visitor.cpp ${outdir}/${name}Visitor.h
    ${outdir}/${name}BaseVisitor.cpp ${outdir}/${name}BaseVisitor.h)
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${outdir}
    COMMAND ${KERN_ANTLR4} -Dlanguage=Cpp -visitor -no-listener -package kern_antlr
            -o ${outdir} -Xexact-output-dir ${grammar}
    DEPENDS ${grammar}
    COMMENT "Generating the ${name} parser with ANTLR"
    VERBATIM)
  set(${outvar} ${outputs} PARENT_SCOPE)
endfunction()
