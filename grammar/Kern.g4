// The grammar of .kern programs: the C subset of CUDA (LANGUAGE.md), plus just enough C++ to
// recognise the unsupported constructs and name them in one diagnostic.
grammar Kern;

@parser::header {
#include <set>
#include <string>
}

@parser::members {
  // C's typedef ambiguity (`(T)x` vs `(a)*b`, `T * p;`) is resolved with the set of names known
  // to be types: CUDA's builtin type names, plus every typedef name (and, as in C++, every
  // struct or enum tag) declared so far.
  std::set<std::string> typeNames = {
      "size_t", "ptrdiff_t", "dim3", "uint3", "cudaError_t", "cudaStream_t", "cudaEvent_t",
      "cudaMemcpyKind", "cudaDeviceProp", "cudaFuncAttributes", "cudaDeviceAttr", "cudaFuncCache",
      "cudaMemLocation", "cudaPointerAttributes", "cudaMemoryAdvise", "cudaMemLocationType",
      "cudaMemoryType",
      "cudaLimit", "cudaComputeMode", "cudaAccessProperty", "cudaAccessPolicyWindow",
      "cudaStreamAttrValue", "cudaLaunchAttributeValue", "cudaStreamAttrID",
      "cudaLaunchAttributeID", "cudaSynchronizationPolicy", "cudaStreamCallback_t",
      "cudaHostFn_t", "cudaMemPool_t", "cudaMemPoolProps", "cudaMemPoolAttr",
      "cudaMemAllocationType", "cudaMemAllocationHandleType", "cuuint64_t",
      "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
      "char1", "char2", "char3", "char4", "uchar1", "uchar2", "uchar3", "uchar4",
      "short1", "short2", "short3", "short4", "ushort1", "ushort2", "ushort3", "ushort4",
      "int1", "int2", "int3", "int4", "uint1", "uint2", "uint3", "uint4",
      "long1", "long2", "long3", "long4", "ulong1", "ulong2", "ulong3", "ulong4",
      "longlong1", "longlong2", "longlong3", "longlong4",
      "ulonglong1", "ulonglong2", "ulonglong3", "ulonglong4",
      "float1", "float2", "float3", "float4", "double1", "double2", "double3", "double4",
      "clock_t", "ssize_t", "time_t", "FILE", "timeval", "timespec"};

  bool isTypeName(const std::string &s) const { return typeNames.count(s) != 0; }

  // True when the token `i` tokens ahead can start a type name; decides casts, sizeof(type),
  // compound literals and parameter lists against parenthesised expressions. Used in
  // predicates at the left edge of alternatives, so that prediction evaluates them.
  bool startsType(int i) {
    antlr4::Token *t = _input->LT(i);
    switch (t->getType()) {
    case Void: case Char: case Short: case Int: case Long: case Float: case Double:
    case Signed: case Unsigned: case Bool: case CBool: case Auto: case Struct: case Union:
    case Enum: case Const: case Volatile: case Restrict: case Typename:
      return true;
    case Identifier:
      return isTypeName(t->getText());
    default:
      return false;
    }
  }

  // A `(` after a declarator opens a parameter list when it is empty or starts with a type;
  // otherwise it is C++ direct initialisation, `dim3 grid(4, 4);`.
  bool startsParams(int i) {
    size_t t = _input->LA(i);
    return t == RightParen || t == Ellipsis || startsType(i);
  }

  class DeclarationSpecifiersContext;
  class DeclaratorContext;
  class InitDeclaratorListContext;

  // C's rule for a name that is a type: once the specifiers of a declaration have a type
  // specifier, the name is the declarator, not a second type (`typedef struct P {...} P;`, a
  // repeated `typedef unsigned u32;`). The nearest specifier list being parsed decides; only
  // its finished specifiers count (a struct specifier still open does not).
  bool typeSpecified() {
    for (antlr4::ParserRuleContext *c = _ctx; c;
         c = dynamic_cast<antlr4::ParserRuleContext *>(c->parent)) {
      if (auto *ds = dynamic_cast<DeclarationSpecifiersContext *>(c))
        return specifiersHaveType(ds);
    }
    return false;
  }
  static bool specifiersHaveType(DeclarationSpecifiersContext *specs) {
    for (auto *s : specs->declarationSpecifier())
      if (s->stop && s->typeSpecifier())
        return true;
    return false;
  }

  static bool specifiersHaveTypedef(DeclarationSpecifiersContext *specs) {
    for (auto *s : specs->declarationSpecifier())
      if (s->Typedef())
        return true;
    return false;
  }

  static std::string declaratorName(DeclaratorContext *d) {
    while (d) {
      auto *dd = d->directDeclarator();
      if (dd->Identifier())
        return dd->Identifier()->getText();
      d = dd->declarator();
    }
    return "";
  }

  // Records the names declared by a typedef so that later uses parse as types.
  void noteDeclaration(DeclarationSpecifiersContext *specs, InitDeclaratorListContext *list) {
    if (!list || !specifiersHaveTypedef(specs))
      return;
    for (auto *d : list->initDeclarator()) {
      std::string n = declaratorName(d->declarator());
      if (!n.empty())
        typeNames.insert(n);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Declarations
// ---------------------------------------------------------------------------------------------

translationUnit : externalDeclaration* EOF ;

externalDeclaration
  : functionDefinition
  | declaration
  | unsupportedDeclaration
  | Extern StringLiteral ('{' externalDeclaration* '}' | externalDeclaration) // extern "C"
  | ';'
  ;

functionDefinition : declarationSpecifiers declarator compoundStatement ;

declaration
  : declarationSpecifiers initDeclaratorList?
    { noteDeclaration($ctx->declarationSpecifiers(), $ctx->initDeclaratorList()); } ';'
  ;

declarationSpecifiers : declarationSpecifier+ ;

declarationSpecifier
  : Typedef | Extern | Static
  | Global | Device | Host | Shared | Constant
  | Inline | ForceInline | NoInline
  | launchBounds
  | alignSpecifier
  | attributeSpecifier
  | typeQualifier
  | typeSpecifier
  ;

launchBounds : LaunchBounds '(' conditionalExpression (',' conditionalExpression)? ')' ;

alignSpecifier : Align '(' conditionalExpression ')' ;

// GNU attributes are skipped, except aligned(n), which means __align__(n).
attributeSpecifier : Attribute '(' '(' attributeItem? (',' attributeItem?)* ')' ')' ;

attributeItem : Identifier ('(' argumentExpressionList? ')')? ;

typeQualifier : Const | Volatile | Restrict ;

typeSpecifier
  : Void | Char | Short | Int | Long | Float | Double | Signed | Unsigned | Bool | CBool
  | Auto
  | structSpecifier
  | enumSpecifier
  | typedefName
  ;

typedefName : {isTypeName(_input->LT(1)->getText()) && !typeSpecified()}? Identifier ;

structSpecifier
  : (Struct | Union) (alignSpecifier | attributeSpecifier)* Identifier?
    '{' structDeclaration* '}' (alignSpecifier | attributeSpecifier)*
    { if ($ctx->Identifier()) typeNames.insert($ctx->Identifier()->getText()); }
  | (Struct | Union) (alignSpecifier | attributeSpecifier)* Identifier
    { typeNames.insert($ctx->Identifier()->getText()); }
  ;

structDeclaration
  : declarationSpecifiers structDeclarator (',' structDeclarator)* ';'
  | declarationSpecifiers ';'
  | declarationSpecifiers declarator compoundStatement ';'? // a member function
  // a constructor or destructor, recognised to be reported
  | Tilde? Identifier '(' balancedParens* ')' (':' ~('{' | ';')*)? (compoundStatement ';'? | ';')
  ;

structDeclarator
  : declarator (':' conditionalExpression)?
  | ':' conditionalExpression
  ;

enumSpecifier
  : Enum Class? Identifier? '{' enumerator (',' enumerator)* ','? '}'
    { if ($ctx->Identifier()) typeNames.insert($ctx->Identifier()->getText()); }
  | Enum Class? Identifier
  ;

enumerator : Identifier ('=' conditionalExpression)? ;

initDeclaratorList : initDeclarator (',' initDeclarator)* ;

initDeclarator
  : declarator ('=' initializer | '(' argumentExpressionList ')')?
  ;

declarator : pointerOp* directDeclarator ;

pointerOp
  : '*' typeQualifier*
  | '&' typeQualifier* // a C++ reference: recognised to be reported
  | '&&' typeQualifier*
  ;

directDeclarator
  : (Identifier | '(' declarator ')' | Operator operatorName) declaratorSuffix*
  ;

declaratorSuffix
  : '[' assignmentExpression? ']'
  | {startsParams(2)}? '(' parameterTypeList? ')' typeQualifier*
  ;

// `operator` is recognised only so that operator overloading gets a clear diagnostic.
operatorName
  : '+' | '-' | '*' | '/' | '%' | '^' | '&' | '|' | '~' | '!' | '=' | '<' | '>' | '+=' | '-='
  | '*=' | '/=' | '%=' | '^=' | '&=' | '|=' | '<<' | '>>' | '>>=' | '<<=' | '==' | '!=' | '<='
  | '>=' | '&&' | '||' | '++' | '--' | ',' | '->' | '(' ')' | '[' ']'
  ;

parameterTypeList : parameterDeclaration (',' parameterDeclaration)* (',' '...')? | '...' ;

// A default argument is recognised to be reported.
parameterDeclaration
  : declarationSpecifiers (declarator | abstractDeclarator)? ('=' assignmentExpression)?
  ;

typeName : declarationSpecifiers abstractDeclarator? ;

abstractDeclarator
  : pointerOp+ directAbstractDeclarator?
  | directAbstractDeclarator
  ;

directAbstractDeclarator
  : ('(' abstractDeclarator ')' | abstractSuffix) abstractSuffix*
  ;

abstractSuffix
  : '[' assignmentExpression? ']'
  | '(' parameterTypeList? ')'
  ;

initializer
  : assignmentExpression
  | '{' initializerList? ','? '}'
  ;

initializerList : designatedInitializer (',' designatedInitializer)* ;

designatedInitializer : designator* initializer ;

designator : ('[' conditionalExpression ']' | '.' Identifier) '='? ;

// C++ constructs, consumed as a whole so that one diagnostic names them.
unsupportedDeclaration
  : Template '<' templateTokens* '>' declarationTail
  | Class declarationTail
  | Namespace Identifier? ('=' ~';'* ';' | '{' balancedBraces* '}')
  | Using ~';'* ';'
  | Asm Volatile? '(' balancedParens* ')' ';'
  ;

templateTokens : '<' templateTokens* '>' | ~('<' | '>' | '{' | '}' | ';') ;

declarationTail : ~('{' | '}' | ';')* ('{' balancedBraces* '}' ';'? | ';') ;

balancedBraces : '{' balancedBraces* '}' | ~('{' | '}') ;

balancedParens : '(' balancedParens* ')' | ~('(' | ')') ;

// ---------------------------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------------------------

statement
  : compoundStatement
  | labeledStatement
  | expressionStatement
  | ifStatement
  | switchStatement
  | whileStatement
  | doStatement
  | forStatement
  | jumpStatement
  | unsupportedStatement
  ;

compoundStatement : '{' blockItem* '}' ;

blockItem : declaration | statement ;

labeledStatement
  : Identifier ':' statement
  | Case conditionalExpression ':' statement
  | Default ':' statement
  ;

expressionStatement : expression? ';' ;

ifStatement : If '(' expression ')' statement (Else statement)? ;

switchStatement : Switch '(' expression ')' statement ;

whileStatement : While '(' expression ')' statement ;

doStatement : Do statement While '(' expression ')' ';' ;

forStatement
  : For '(' forInit? ';' cond=expression? ';' step=expression? ')' statement
  ;

forInit
  : declarationSpecifiers initDeclaratorList
    { noteDeclaration($ctx->declarationSpecifiers(), $ctx->initDeclaratorList()); }
  | expression
  ;

jumpStatement
  : Goto Identifier ';'
  | Continue ';'
  | Break ';'
  | Return expression? ';'
  ;

unsupportedStatement
  : Try compoundStatement (Catch '(' balancedParens* ')' compoundStatement)+
  | Throw expression? ';'
  | Asm Volatile? '(' balancedParens* ')' ';'
  ;

// ---------------------------------------------------------------------------------------------
// Expressions, in C's precedence order (lowest first)
// ---------------------------------------------------------------------------------------------

expression : assignmentExpression (',' assignmentExpression)* ;

// The left side is parsed as a conditional expression and checked for being assignable by
// sema; this keeps the rule LL(1) instead of a scan over the whole left operand.
assignmentExpression : conditionalExpression (assignmentOperator assignmentExpression)? ;

assignmentOperator : '=' | '*=' | '/=' | '%=' | '+=' | '-=' | '<<=' | '>>=' | '&=' | '^=' | '|=' ;

// The third operand is an assignment expression, as in C++ (CUDA's language).
conditionalExpression
  : logicalOrExpression ('?' expression ':' assignmentExpression)?
  ;

logicalOrExpression : logicalAndExpression ('||' logicalAndExpression)* ;

logicalAndExpression : inclusiveOrExpression ('&&' inclusiveOrExpression)* ;

inclusiveOrExpression : exclusiveOrExpression ('|' exclusiveOrExpression)* ;

exclusiveOrExpression : andExpression ('^' andExpression)* ;

andExpression : equalityExpression ('&' equalityExpression)* ;

equalityExpression : relationalExpression (('==' | '!=') relationalExpression)* ;

relationalExpression : shiftExpression (('<' | '>' | '<=' | '>=') shiftExpression)* ;

shiftExpression : additiveExpression (('<<' | '>>') additiveExpression)* ;

additiveExpression : multiplicativeExpression (('+' | '-') multiplicativeExpression)* ;

multiplicativeExpression : castExpression (('*' | '/' | '%') castExpression)* ;

castExpression
  : {startsType(2)}? '(' typeName ')' castExpression
  | {startsType(2)}? '(' typeName ')' '{' initializerList? ','? '}' // compound literal
  | unaryExpression
  ;

unaryExpression
  : postfixExpression
  | ('++' | '--') unaryExpression
  | unaryOperator castExpression
  | {startsType(3)}? Sizeof '(' typeName ')'
  | Sizeof unaryExpression
  ;

unaryOperator : '&' | '*' | '+' | '-' | '~' | '!' ;

postfixExpression : primaryExpression postfixSuffix* ;

postfixSuffix
  : '[' expression ']'
  | '(' argumentExpressionList? ')'
  | '<<<' argumentExpressionList '>>>' '(' argumentExpressionList? ')'
  | '.' Identifier
  | '->' Identifier
  | '++'
  | '--'
  ;

primaryExpression
  : Identifier
  | IntegerConstant
  | FloatingConstant
  | CharacterConstant
  | StringLiteral+
  | True
  | False
  | Nullptr
  | '(' expression ')'
  // C++ functional cast, `float(i)`; `dim3(16, 16)` is an ordinary call of an identifier.
  | builtinTypeKeyword '(' argumentExpressionList? ')'
  | CxxCast '<' typeName '>' '(' expression ')'
  | lambdaExpression
  ;

builtinTypeKeyword : Char | Short | Int | Long | Float | Double | Signed | Unsigned | Bool ;

lambdaExpression
  : '[' (~']')* ']' ('(' parameterTypeList? ')')? ~'{'* compoundStatement
  ;

argumentExpressionList : assignmentExpression (',' assignmentExpression)* ;

// ---------------------------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------------------------

Auto : 'auto' ;
Bool : 'bool' ;
CBool : '_Bool' ;
Break : 'break' ;
Case : 'case' ;
Char : 'char' ;
Const : 'const' ;
Continue : 'continue' ;
Default : 'default' ;
Do : 'do' ;
Double : 'double' ;
Else : 'else' ;
Enum : 'enum' ;
Extern : 'extern' ;
False : 'false' ;
Float : 'float' ;
For : 'for' ;
Goto : 'goto' ;
If : 'if' ;
Inline : 'inline' | '__inline__' | '__inline' ;
Int : 'int' ;
Long : 'long' ;
Nullptr : 'nullptr' ;
Restrict : 'restrict' | '__restrict__' | '__restrict' ;
Return : 'return' ;
Short : 'short' ;
Signed : 'signed' | '__signed__' ;
Sizeof : 'sizeof' ;
Static : 'static' ;
Struct : 'struct' ;
Switch : 'switch' ;
True : 'true' ;
Typedef : 'typedef' ;
Union : 'union' ;
Unsigned : 'unsigned' ;
Void : 'void' ;
Volatile : 'volatile' | '__volatile__' ;
While : 'while' ;

Global : '__global__' ;
Device : '__device__' ;
Host : '__host__' ;
Shared : '__shared__' ;
Constant : '__constant__' ;
ForceInline : '__forceinline__' ;
NoInline : '__noinline__' ;
LaunchBounds : '__launch_bounds__' ;
Align : '__align__' | 'alignas' ;
Attribute : '__attribute__' ;

// C++ keywords, recognised for their diagnostics.
Asm : 'asm' | '__asm__' | '__asm' ;
Catch : 'catch' ;
// `constexpr` declares a constant, as `const` does (a constexpr function is an ordinary one).
Constexpr : 'constexpr' -> type(Const) ;
Delete : 'delete' ;
New : 'new' ;
Class : 'class' ;
CxxCast : 'static_cast' | 'reinterpret_cast' | 'const_cast' | 'dynamic_cast' ;
Namespace : 'namespace' ;
Operator : 'operator' ;
Template : 'template' ;
Throw : 'throw' ;
Try : 'try' ;
Typename : 'typename' ;
Using : 'using' ;

LeftParen : '(' ;
RightParen : ')' ;
LeftBracket : '[' ;
RightBracket : ']' ;
LeftBrace : '{' ;
RightBrace : '}' ;

// `<<<` and `>>>` are tokens of their own: C has no `>>>`, and `a << b`, `x >>= 1` still lex
// as shifts because the longest match wins.
LaunchOpen : '<<<' ;
LaunchClose : '>>>' ;

Less : '<' ;
LessEqual : '<=' ;
Greater : '>' ;
GreaterEqual : '>=' ;
LeftShift : '<<' ;
RightShift : '>>' ;
Plus : '+' ;
PlusPlus : '++' ;
Minus : '-' ;
MinusMinus : '--' ;
Star : '*' ;
Div : '/' ;
Mod : '%' ;
And : '&' ;
Or : '|' ;
AndAnd : '&&' ;
OrOr : '||' ;
Caret : '^' ;
Not : '!' ;
Tilde : '~' ;
Question : '?' ;
Colon : ':' ;
ColonColon : '::' ;
Semi : ';' ;
Comma : ',' ;
Assign : '=' ;
StarAssign : '*=' ;
DivAssign : '/=' ;
ModAssign : '%=' ;
PlusAssign : '+=' ;
MinusAssign : '-=' ;
LeftShiftAssign : '<<=' ;
RightShiftAssign : '>>=' ;
AndAssign : '&=' ;
XorAssign : '^=' ;
OrAssign : '|=' ;
Equal : '==' ;
NotEqual : '!=' ;
Arrow : '->' ;
Dot : '.' ;
Ellipsis : '...' ;
Hash : '#' ;

Identifier : [a-zA-Z_] [a-zA-Z_0-9]* ;

IntegerConstant
  : ( [1-9] [0-9]* | '0' [0-7]* | '0' [xX] [0-9a-fA-F]+ | '0' [bB] [01]+ ) IntegerSuffix?
  ;

fragment IntegerSuffix
  : [uU] ([lL] | 'll' | 'LL')?
  | ([lL] | 'll' | 'LL') [uU]?
  ;

FloatingConstant
  : ( [0-9]+ '.' [0-9]* Exponent? | '.' [0-9]+ Exponent? | [0-9]+ Exponent ) [fFlL]?
  | '0' [xX] ( [0-9a-fA-F]* '.' [0-9a-fA-F]+ | [0-9a-fA-F]+ '.'? ) [pP] [+-]? [0-9]+ [fFlL]?
  ;

fragment Exponent : [eE] [+-]? [0-9]+ ;

CharacterConstant : '\'' ( ~['\\\r\n] | '\\' ~[\r\n] )+ '\'' ;

StringLiteral : '"' ( ~["\\\r\n] | '\\' ~[\r\n] )* '"' ;

Whitespace : [ \t\r\n\f\u000B]+ -> skip ;

// The preprocessor removes comments; these rules keep the parser usable on raw text too.
BlockComment : '/*' .*? '*/' -> skip ;
LineComment : '//' ~[\r\n]* -> skip ;

// Any other character becomes a token that no rule accepts, so it is reported as a syntax
// error rather than by the lexer's console listener.
Unknown : . ;
