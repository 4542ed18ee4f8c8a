// Helpers that turn the TYPE column of params.def into what each expansion
// needs: the registry's type text, a C++ type for the default constant, the
// ParamSet getter and the default as registry text. Pasting `VP_x_##TYPE`
// gives VP_x_INT, ... or VP_x_ENUM_OF("a|b"), which is itself a macro call.
#pragma once

#include <cstdint>
#include <string_view>

// Registry type text: "int", ..., "enum:a|b".
#define VP_PARAM_TYPE_TEXT_INT "int"
#define VP_PARAM_TYPE_TEXT_FLOAT "float"
#define VP_PARAM_TYPE_TEXT_BOOL "bool"
#define VP_PARAM_TYPE_TEXT_STRING "string"
#define VP_PARAM_TYPE_TEXT_ENUM_OF(values) "enum:" values

// C++ type of a default constant (param_defaults.h).
#define VP_PARAM_CTYPE_INT std::int64_t
#define VP_PARAM_CTYPE_FLOAT double
#define VP_PARAM_CTYPE_BOOL bool
#define VP_PARAM_CTYPE_STRING std::string_view
#define VP_PARAM_CTYPE_ENUM_OF(values) std::string_view

// ParamSet getter of the type.
#define VP_PARAM_GET_INT get_int
#define VP_PARAM_GET_FLOAT get_double
#define VP_PARAM_GET_BOOL get_bool
#define VP_PARAM_GET_STRING get_string
#define VP_PARAM_GET_ENUM_OF(values) get_string

// The default as the registry parses it: numbers and bools are spelt as
// written in the table, strings are already literals.
#define VP_PARAM_SPELLING(x) #x
#define VP_PARAM_LITERAL(x) x
#define VP_PARAM_DEFAULT_TEXT_INT VP_PARAM_SPELLING
#define VP_PARAM_DEFAULT_TEXT_FLOAT VP_PARAM_SPELLING
#define VP_PARAM_DEFAULT_TEXT_BOOL VP_PARAM_SPELLING
#define VP_PARAM_DEFAULT_TEXT_STRING VP_PARAM_LITERAL
#define VP_PARAM_DEFAULT_TEXT_ENUM_OF(values) VP_PARAM_LITERAL

// USE column.
#define VP_PARAM_AFFECTS_PROGRAM_PROGRAM true
#define VP_PARAM_AFFECTS_PROGRAM_RUN false
