package grammar

import "strconv"

// JSONMaxWhitespace is the longest run of whitespace ([ \t\n\r]) the built-in
// JSON grammar allows between two tokens, and before and after the value. A
// bound keeps the grammar from letting a model pad a document forever.
const JSONMaxWhitespace = 20

// jsonGBNF is the built-in JSON grammar (RFC 8259). Strings and numbers are
// single rules, so that the compiler turns each into one automaton instead of
// calling a rule per character. Every token is followed by exactly one ws, so
// no two runs of whitespace ever meet.
var jsonGBNF = `root   ::= ws value
value  ::= ( object | array | string | number | "true" | "false" | "null" ) ws
object ::= "{" ws ( member ( "," ws member )* )? "}"
member ::= string ws ":" ws value
array  ::= "[" ws ( value ( "," ws value )* )? "]"
string ::= "\"" ( [^"\\\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F]{4} ) )* "\""
number ::= "-"? ( "0" | [1-9] [0-9]* ) ( "." [0-9]+ )? ( [eE] [-+]? [0-9]+ )?
ws     ::= [ \t\n\r]{0,` + strconv.Itoa(JSONMaxWhitespace) + `}
`

// JSON returns the built-in grammar of one JSON value (RFC 8259): objects,
// arrays, strings with exactly the escapes JSON allows (\" \\ \/ \b \f \n \r
// \t \uXXXX; raw control characters are not allowed), numbers, true, false
// and null. Whitespace may precede and follow the value and surround every
// token, at most JSONMaxWhitespace bytes of [ \t\n\r] at each place.
//
// Its rules are root, value, object, member, array, string, number and ws.
// Each call returns a new Grammar, which the caller may change.
func JSON() *Grammar {
	g, err := ParseGBNF(jsonGBNF, "root", Limits{})
	if err != nil {
		// jsonGBNF is a constant that the tests parse; this cannot happen.
		panic("grammar: built-in JSON grammar: " + err.Error())
	}
	return g
}
