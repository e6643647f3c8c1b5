package cuda

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exported lists the exported declarations of a Go file: functions and
// methods with their signatures, types and values by name.
func exported(t *testing.T, path string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	require.NoError(t, err)
	var out []string
	text := func(n ast.Node) string {
		var b bytes.Buffer
		require.NoError(t, printer.Fprint(&b, fset, n))
		return b.String()
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			recv := ""
			if d.Recv != nil {
				recv = "(" + text(d.Recv.List[0].Type) + ") "
			}
			out = append(out, "func "+recv+d.Name.Name+text(d.Type)[len("func"):])
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						out = append(out, "type "+s.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							out = append(out, d.Tok.String()+" "+n.Name)
						}
					}
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestSameAPIWithAndWithoutTag keeps the two builds interchangeable: an engine
// compiles against either. Only the converters from gorgonia.org/cu types,
// which a caller without the tag cannot name, exist in the tagged build alone.
func TestSameAPIWithAndWithoutTag(t *testing.T) {
	with := exported(t, "masker_cuda.go")
	without := exported(t, "masker_nocuda.go")
	var tagOnly []string
	for _, d := range with {
		if d == "func ContextOf(c cu.CUContext) Context" || d == "func StreamOf(s cu.Stream) Stream" {
			tagOnly = append(tagOnly, d)
			continue
		}
		assert.Containsf(t, without, d, "the untagged build lacks %q", d)
	}
	assert.Len(t, tagOnly, 2)
	assert.Len(t, without, len(with)-len(tagOnly), "the untagged build has extra declarations: %q", without)
}
