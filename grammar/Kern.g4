// The grammar of .kern programs: the C subset of CUDA (LANGUAGE.md), plus just enough C++ to
// recognise the unsupported constructs and name them in one diagnostic.
grammar Kern;

@parser::header {
#include <map>
#include <set>
#include <string>
#include <vector>
}

@parser::members {
#include "grammar/parser_members.inc"
}

// ---------------------------------------------------------------------------------------------
// Declarations
// ---------------------------------------------------------------------------------------------

translationUnit : externalDeclaration* EOF ;

externalDeclaration
  : {outOfClassConstructorAhead()}? constructorDefinition
  | functionDefinition
  | declaration
  | templateDeclaration
  | namespaceDefinition
  | usingDeclaration
  | staticAssertDeclaration
  | unsupportedDeclaration
  | Extern StringLiteral ('{' externalDeclaration* '}' | externalDeclaration) // extern "C"
  | ';'
  ;

functionDefinition
  // C89: `float squash(x) float x; {...}`, `main() {...}` (the result int)
  : {knrAhead()}? declarationSpecifiers? knrDeclarator declaration* compoundStatement
  | declarationSpecifiers declarator
    // A function template's name is a template in its own body (a recursive `f<i - 1>(x)`).
    { if (pendingTemplate) templateNames.insert(qualify(declaratorName($ctx->declarator()))); }
    compoundStatement
  ;

knrDeclarator : pointerOp* Identifier '(' (Identifier (',' Identifier)*)? ')' ;

// A function template: `template <typename T, int N> __global__ void k(T *p) {...}`.
templateDeclaration
  : Template declaration // an explicit instantiation: `template void f<float>(float *);`
  | Template '<' (templateParameter (',' templateParameter)*)? '>'
    { for (auto *p : $ctx->templateParameter())
        if (p->Typename() || p->Class())
          typeNames.insert(p->Identifier()->getText());
      pendingTemplate = true; }
    // `template <class T> C<T>::C(int n) : v(n) {...}`: a class template's constructor
    // defined outside it; `template <class T> template <class U>`: its member template.
    ({outOfClassConstructorAhead()}? constructorDefinition | functionDefinition | declaration
     | templateDeclaration)
    { pendingTemplate = false;
      if ($ctx->functionDefinition()) templateNames.insert(qualify(
          declaratorName($ctx->functionDefinition()->declarator())));
      else if ($ctx->declaration() && $ctx->declaration()->initDeclaratorList())
        for (auto *d : $ctx->declaration()->initDeclaratorList()->initDeclarator())
          templateNames.insert(qualify(declaratorName(d->declarator()))); }
  ;

templateArguments : '<' templateArgument (',' templateArgument)* '>' ;

// `obj.get<float>(x)`: after the name of a member function template.
memberTemplateArguments
  : {_input->LA(1) == Less && memberTemplateNames.count(_input->LT(-1)->getText()) != 0}?
    templateArguments
  ;

templateParameter
  : (Typename | Class) Identifier ('=' typeName)?
  | declarationSpecifiers Identifier ('=' conditionalExpression)?
  ;

namespaceDefinition
  : Inline? Namespace Identifier? '{' { enterNamespace($ctx->Identifier() ? $ctx->Identifier()->getText() : ""); }
    externalDeclaration* '}' { leaveNamespace(); }
  ;

// `using namespace N;`, `namespace A = N;`, `using N::name;`, `using T = type;`.
usingDeclaration
  : Using Namespace qualifiedId ';' { noteUsing($ctx->qualifiedId()->getText()); }
  | Namespace Identifier '=' qualifiedId ';'
    { noteAlias($ctx->Identifier()->getText(), $ctx->qualifiedId()->getText()); }
  | Using Identifier '=' typeName ';' { typeNames.insert(qualify($ctx->Identifier()->getText())); }
  | Using qualifiedId ';'
    { if (isTypeName($ctx->qualifiedId()->getText())) {
        std::string q = $ctx->qualifiedId()->getText();
        size_t cut = q.rfind("::");
        typeNames.insert(qualify(cut == std::string::npos ? q : q.substr(cut + 2)));
      } }
  ;

qualifiedId : '::'? Identifier ('::' Identifier)* ;

// `static_assert(cond, "message");` and `static_assert(cond);`, at namespace, block or struct scope.
staticAssertDeclaration : StaticAssert '(' conditionalExpression (',' StringLiteral+)? ')' ';' ;

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
  | {_input->LT(1)->getText() == "virtual"}? Identifier // a virtual member function
  ;

launchBounds : LaunchBounds '(' conditionalExpression (',' conditionalExpression)? ')' ;

alignSpecifier : Align '(' conditionalExpression ')' ;

// GNU attributes are skipped, except aligned(n), which means __align__(n), and packed on a
// struct, which means #pragma pack(1) for it.
attributeSpecifier : Attribute '(' '(' attributeItem? (',' attributeItem?)* ')' ')' ;

attributeItem : Identifier ('(' argumentExpressionList? ')')? ;

typeQualifier : Const | Volatile | Restrict ;

typeSpecifier
  : Void | Char | Short | Int | Long | Float | Double | Signed | Unsigned | Bool | CBool
  | Auto
  | Decltype '(' expression ')'
  | structSpecifier
  | enumSpecifier
  | typedefName
  ;

typedefName
  : {isTypeName(qualifiedNameAt(1)) && !typeSpecified() && !templateMemberAhead()}? qualifiedId
    ({_input->LA(1) == Less && isTemplateName(qualifiedNameBefore())}? templateArguments
     // a member type of a class template's instance: `std::vector<int>::iterator`
     ({_input->LA(1) == ColonColon && _input->LA(2) == Identifier &&
       isTypeName($ctx->qualifiedId()->getText() + "::" + _input->LT(2)->getText())}? '::' Identifier)?)?
  // A dependent member type: `typename vec3<T>::Type`, `typename T::value_type`.
  | Typename qualifiedId templateArguments? '::' Identifier
  ;

structSpecifier
  : (Struct | Union | Class) (alignSpecifier | attributeSpecifier)*
    (Identifier templateArguments? virtSpecifier?)?
    { if ($ctx->Identifier()) noteTypeName($ctx->Identifier()->getText());
      if ($ctx->Identifier() && pendingTemplate) {
        templateNames.insert(qualify($ctx->Identifier()->getText()));
        if (!structStack.empty() && !structStack.back().empty()) // a member class template
          templateNames.insert(qualify(structStack.back() + "::" + $ctx->Identifier()->getText()));
      }
      pendingTemplate = false;
      structStack.push_back($ctx->Identifier() ? $ctx->Identifier()->getText() : ""); }
    baseClause? '{' structDeclaration* '}' { structStack.pop_back(); } (alignSpecifier | attributeSpecifier)*
  | (Struct | Union | Class) (alignSpecifier | attributeSpecifier)* Identifier
    { typeNames.insert(qualify($ctx->Identifier()->getText())); }
  ;

// `struct D : B, public ns::C<T> {`: the base classes (`public`, `private`, `protected` and
// `virtual` are identifiers here).
baseClause : ':' baseSpecifier (',' baseSpecifier)* ;

baseSpecifier
  : ({_input->LT(1)->getText() == "public" || _input->LT(1)->getText() == "private" ||
      _input->LT(1)->getText() == "protected" || _input->LT(1)->getText() == "virtual"}?
     Identifier)*
    qualifiedId templateArguments?
  ;

structDeclaration
  : {_input->LT(1)->getText() == "public" || _input->LT(1)->getText() == "private" ||
     _input->LT(1)->getText() == "protected"}? Identifier ':' // an access specifier
  | staticAssertDeclaration
  | {constructorAhead()}? constructorDeclaration
  | {!constructorAhead()}? declarationSpecifiers structDeclarator (',' structDeclarator)* ';'
    { noteMemberTypedefs($ctx->declarationSpecifiers(), $ctx->structDeclarator()); }
  | {!constructorAhead()}? declarationSpecifiers ';'
  | {!constructorAhead()}? declarationSpecifiers declarator compoundStatement ';'? // a member function
  | {_input->LA(1) == Operator}? declarator compoundStatement ';'? // `operator bool() const {...}`
  // A member function template, defined in its class: `template <typename T> T get(T v) {...}`;
  // or a member class template, `template <bool B> struct Column {...};`.
  | Template '<' templateParameter (',' templateParameter)* '>'
    { for (auto *p : $ctx->templateParameter())
        if (p->Typename() || p->Class())
          typeNames.insert(p->Identifier()->getText());
      pendingTemplate = true; }
    declarationSpecifiers { pendingTemplate = false; }
    (declarator (compoundStatement ';'? | ';')
     { std::string n = declaratorName($ctx->declarator());
       memberTemplateNames.insert(n);
       if (!structStack.empty() && !structStack.back().empty())
         templateNames.insert(qualify(structStack.back() + "::" + n)); }
    | ';')
  ;

// `S(args) : field(value), ... { body }` (and `~S()`), inside struct S.
constructorDeclaration
  : constructorSpecifier* Tilde? Identifier '(' parameterTypeList? ')' exceptionSpecifier?
    virtSpecifier* constructorInitializer?
    (compoundStatement ';'? | ('=' (Default | Delete))? ';') // `~S() = default;`, `S(const S &) = delete;`
  ;

// `S::S(args) : ... { body }` after struct S, and `S::~S() { body }`.
constructorDefinition
  : constructorSpecifier* qualifiedId (templateArguments '::' Tilde? Identifier | '::' Tilde Identifier)?
    '(' parameterTypeList? ')'
    exceptionSpecifier? constructorInitializer? compoundStatement
  ;

constructorSpecifier
  : Device | Host | Inline | ForceInline
  | {_input->LT(1)->getText() == "explicit" || _input->LT(1)->getText() == "virtual"}? Identifier
  ;

constructorInitializer : ':' memberInitializer (',' memberInitializer)* ;

memberInitializer
  : qualifiedId templateArguments? ('(' argumentExpressionList? ')' | '{' argumentExpressionList? '}') ;

structDeclarator
  : declarator '=' (Default | Delete) // `S &operator=(const S &) = default;` (or `= delete`)
  | declarator (':' conditionalExpression | '=' initializer)?
  | ':' conditionalExpression
  ;

// `enum class E : unsigned char {...}`: scoped, with an underlying type.
enumSpecifier
  : Enum (Class | Struct)? Identifier? (':' declarationSpecifiers)?
    '{' (enumerator (',' enumerator)* ','?)? '}'
    { if ($ctx->Identifier()) noteTypeName($ctx->Identifier()->getText()); }
  | Enum (Class | Struct)? Identifier (':' declarationSpecifiers)?
    { noteTypeName($ctx->Identifier()->getText()); }
  ;

enumerator : Identifier ('=' conditionalExpression)? ;

initDeclaratorList : initDeclarator (',' initDeclarator)* ;

initDeclarator
  : declarator
    ( '=' initializer
    | '(' argumentExpressionList ')'
    // `float2 v{1, 2};` (list initialisation), not a function's body
    | {_input->LT(-1)->getType() != RightParen}? '{' initializerList? ','? '}'
    )?
  ;

declarator : pointerOp* directDeclarator ;

pointerOp
  : '*' typeQualifier*
  | '&' typeQualifier* // a C++ reference: recognised to be reported
  | '&&' typeQualifier*
  ;

directDeclarator
  : (qualifiedId (templateArguments classTemplateMember?)? | '(' declarator ')'
    | Operator operatorName | Operator conversionType)
    declaratorSuffix*
  ;

// `::f` in `template <class T> void C<T>::f() {...}`: a class template's member defined outside it.
// (`C<T>::Inner::f`, a member of a nested class, is recognised to be reported.)
classTemplateMember
  : ('::' Identifier)* '::' (Identifier | Operator operatorName | Operator conversionType) ;

declaratorSuffix
  : '[' assignmentExpression? ']'
  | {startsParams(2)}? '(' parameterTypeList? ')' typeQualifier* exceptionSpecifier?
    virtSpecifier*
  ;

// `noexcept`, `noexcept(expr)` and C++03's `throw()`: accepted; kern has no exceptions to stop.
exceptionSpecifier
  : {_input->LT(1)->getText() == "noexcept"}? Identifier ('(' conditionalExpression ')')?
  | Throw '(' ')'
  ;

// `override` and `final` after a member function's parameters, `final` after a class's name.
virtSpecifier
  : {_input->LT(1)->getText() == "override" || _input->LT(1)->getText() == "final"}? Identifier
  ;

// `operator` is recognised only so that operator overloading gets a clear diagnostic.
operatorName
  : '+' | '-' | '*' | '/' | '%' | '^' | '&' | '|' | '~' | '!' | '=' | '<' | '>' | '+=' | '-='
  | '*=' | '/=' | '%=' | '^=' | '&=' | '|=' | '<<' | '>>' | '>>=' | '<<=' | '==' | '!=' | '<='
  | '>=' | '&&' | '||' | '++' | '--' | ',' | '->' | '(' ')' | '[' ']'
  | New ('[' ']')? | Delete ('[' ']')? // a class's own allocation functions
  ;

// `operator float *()`: the type a conversion function converts to.
conversionType : declarationSpecifiers pointerOp* ;

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
  : Asm Volatile? '(' balancedParens* ')' ';'
  ;


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
  | tryStatement
  | throwStatement
  | unsupportedStatement
  ;

compoundStatement : '{' blockItem* '}' ;

blockItem : declaration | usingDeclaration | staticAssertDeclaration | statement ;

labeledStatement
  : Identifier ':' labeledBody
  | Case conditionalExpression ':' labeledBody
  | Default ':' labeledBody
  ;

// C++: a declaration may follow a label (it belongs to the enclosing block).
labeledBody : declaration | statement ;

expressionStatement : expression? ';' ;

ifStatement : If '(' condition ')' statement (Else statement)? ;

switchStatement : Switch '(' condition ')' statement ;

whileStatement : While '(' condition ')' statement ;

// C++: `if (T *x = f())`, `while (S s = next())`: a variable whose value is the condition.
condition
  : declarationSpecifiers initDeclaratorList
    { noteDeclaration($ctx->declarationSpecifiers(), $ctx->initDeclaratorList()); }
  | expression
  ;

doStatement : Do statement While '(' expression ')' ';' ;

forStatement
  : For '(' forInit? ';' cond=expression? ';' step=expression? ')' statement
  | For '(' forRangeDeclaration ':' range=expression ')' statement // C++: over an array
  ;

forRangeDeclaration : declarationSpecifiers declarator ;

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
  | Return '{' initializerList? ','? '}' ';' // C++: the result built from a braced list
  ;

// C++ exceptions of host code (frontend/sema_exceptions.cpp).
tryStatement : Try compoundStatement handler+ ;

handler : Catch '(' (parameterDeclaration | '...') ')' compoundStatement ;

throwStatement : Throw expression? ';' ;

unsupportedStatement
  : Asm Volatile? '(' balancedParens* ')' ';'
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
  | {startsType(3)}? (Sizeof | Alignof) '(' typeName ')'
  | (Sizeof | Alignof) unaryExpression
  | newExpression
  | '::'? Delete ('[' ']')? castExpression
  ;

// `new T`, `new T(args)`, `new T{...}`, `new T[n]`, `new T[n]()`: host code's free store.
newExpression
  : '::'? New newPlacement? declarationSpecifiers pointerOp* ('[' expression ']')?
    ('(' argumentExpressionList? ')' | '{' initializerList? ','? '}')?
  ;

// `new (p) T(args)`: placement new, which constructs a T in the memory at p; `new (pool) T`
// with a class's own `operator new(size_t, Pool *)`: its arguments after the size.
newPlacement : '(' argumentExpressionList ')' ;

unaryOperator : '&' | '*' | '+' | '-' | '~' | '!' ;

postfixExpression : primaryExpression postfixSuffix* ;

postfixSuffix
  : '[' expression ']'
  | '(' argumentExpressionList? ')'
  | '<<<' argumentExpressionList '>>>' '(' argumentExpressionList? ')'
  | '.' (Identifier '::')* Identifier memberTemplateArguments?   // `d.Base::f()`: a base's member
  | '->' (Identifier '::')* Identifier memberTemplateArguments?
  | '++'
  | '--'
  ;

primaryExpression
  : {isTemplateName(qualifiedNameAt(1))}? qualifiedId '<' templateArgument (',' templateArgument)* '>'
    ('::' Identifier)? // `std::numeric_limits<int>::max`: a member of a class template's instance
  // `P{1, 2}`, `Vec<float, 3>{}`: a value of the type, list-initialised
  | {isTypeName(qualifiedNameAt(1)) || isTemplateName(qualifiedNameAt(1))}?
    qualifiedId templateArguments? '{' initializerList? ','? '}'
  | qualifiedId
  | IntegerConstant
  | FloatingConstant
  | CharacterConstant
  | StringLiteral+
  | True
  | False
  | Nullptr
  | '(' compoundStatement ')' // GNU statement expression, `({ int t = f(); t * t; })`
  | '(' expression ')'
  // C++ functional cast, `float(i)`; `dim3(16, 16)` is an ordinary call of an identifier.
  | builtinTypeKeyword '(' argumentExpressionList? ')'
  | builtinTypeKeyword '{' initializerList? '}'
  | CxxCast '<' typeName '>' '(' expression ')'
  | lambdaExpression
  ;

templateArgument : {startsType(1)}? typeName | shiftExpression ;

builtinTypeKeyword : Char | Short | Int | Long | Float | Double | Signed | Unsigned | Bool ;

lambdaExpression
  : '[' (lambdaCapture (',' lambdaCapture)*)? ']' lambdaSpecifier*
    ('(' parameterTypeList? ')')? lambdaSpecifier* ('->' typeName)? compoundStatement
  ;

// `&` and `=` alone are the default capture; `&x` by reference, `x` by value, `this`.
lambdaCapture : '&' Identifier? | '=' | Identifier ('=' assignmentExpression)? | '*' Identifier ;

// `mutable`, `constexpr`, and the CUDA annotations of an extended lambda.
lambdaSpecifier : Device | Host | Const | {_input->LT(1)->getText() == "mutable"}? Identifier ;

argumentExpressionList : assignmentExpression (',' assignmentExpression)* ;

// ---------------------------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------------------------

Auto : 'auto' ;
Decltype : 'decltype' ;
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
Alignof : 'alignof' | '__alignof__' | '__alignof' | '_Alignof' ;
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
StaticAssert : 'static_assert' | '_Static_assert' ;
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
