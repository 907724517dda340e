package entrypoint

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	gotoken "go/token"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docBound is one bound docs/security.md states: where it says it (text with {} in the
// figure's place), the constant or variable of the code that holds it (package directory from
// the repository's root, and name) and how the doc writes its value.
type docBound struct {
	doc    string
	pkg    string
	name   string
	figure func(constant.Value) string
}

// Ways the doc writes a figure.
var (
	// figThousands writes a whole number with figThousands separators: 1,048,576.
	figThousands = func(v constant.Value) string {
		s := v.ExactString()
		for i := len(s) - 3; i > 0; i -= 3 {
			s = s[:i] + "," + s[i:]
		}
		return s
	}
	// figBytes writes a whole number of bytes in MiB or GiB: 256 MiB, 1 GiB.
	figBytes = func(v constant.Value) string {
		n, _ := constant.Int64Val(v)
		if n%(1<<30) == 0 {
			return fmt.Sprintf("%d GiB", n>>30)
		}
		return fmt.Sprintf("%d MiB", n>>20)
	}
	// figPlain writes the value as Go writes the constant: 100, 1e-12.
	figPlain = func(v constant.Value) string {
		f, _ := constant.Float64Val(v)
		return fmt.Sprint(f)
	}
)

// securityBounds is every bound docs/security.md states with its figure.
var securityBounds = []docBound{
	{"within {} (`api.MaxResponseBytes`", "internal/github/api", "MaxResponseBytes", figBytes},
	{"storage host, within {}\n(`artifact.MaxZipBytes`, as is the report inside it)", "internal/github/artifact", "MaxZipBytes", figBytes},
	{"storage host, within 256 MiB\n(`artifact.MaxZipBytes`, as is the report inside it)", "internal/github/artifact", "MaxReportBytes", nil},
	{"walked at most {} directories deep", "gate/input", "MaxFolderDepth", figPlain},
	{"over at most {} entries in\nall", "gate/input", "MaxFolderEntries", figThousands},
	{"| bytes one input may hold after decompression (a `.eval` archive's members together) | {}, `max-input-bytes`", "gate/input", "DefaultMaxInputBytes", figBytes},
	{"| expansion of a compressed input, checked past its first {} |", "gate/input", "bombFree", figBytes},
	{"checked past its first 64 MiB | {} times the compressed bytes", "gate/input", "bombRatio", figPlain},
	{"| one record (a line, an array element, a value) | {} |", "gate/input", "MaxRecord", figBytes},
	{"| one OTLP or Inspect document, or `.eval` member, read whole | {} |", "gate/trace", "maxDocument", figBytes},
	{"the copies its `attachment://` references make | {}, as a record |", "gate/input", "MaxRecord", figBytes},
	{"counted at every reference, its samples together | {} |", "gate/trace", "maxReferenced", figBytes},
	{"about 380 bytes however small the record) | {} of each |", "gate/input", "MaxIDs", figThousands},
	{"SWE-agent, mini-swe-agent) | {} together |", "gate/trace", "maxItems", figThousands},
	{"OpenHands record or message list, counted before it is decoded | {} together |", "gate/trace", "maxItems", figThousands},
	{"(a task, or a result of an RCS harness file) | {} |", "gate/coherence", "maxMembers", figThousands},
	{"and in its `answer_json.citations` | {} each |", "gate/agreement", "maxIDs", figThousands},
	{"| outcomes in the `outcomes` input, its files together | {} |", "gate/outcome", "maxOutcomes", figThousands},
	{"of a baseline report, counted before they are decoded | {} |", "internal/jsonreport", "maxBaselineItems", figThousands},
	{"(read by `agentgate plan`) | counts up to {} (2^30)", "gate/compare", "MaxRunsNeeded", figThousands},
	{"and `regression-alpha` | at least {} (below", "gate/compare", "MinLevel", figPlain},
	{"each with both sides' runs in full | {} each (`compare.MaxTracePairs`)", "gate/compare", "MaxTracePairs", figThousands},
	{"| a baseline report given by path (`baseline`), and a shard's report (`merge`) | {} |", "internal/jsonreport", "MaxBaselineSize", figBytes},
	{"| a baseline report given by path (`baseline`), and a shard's report (`merge`) | 1 GiB |", "internal/jsonreport", "MaxShardSize", nil},
	{"| members a `.eval` archive lists | {} |", "gate/trace", "maxEvalMembers", figThousands},
	{"| nesting of arrays and objects in any JSON input | {} levels |", "internal/jsonscan", "MaxDepth", figThousands},
	{"| a config file (`--config`) | {} |", "entrypoint", "maxConfigBytes", figBytes},
}

// Every bound docs/security.md states is the code's (its "API answers", "Files" and "Input
// limits"), read from the constant or variable's declaration in the source, so that the doc
// and the code cannot drift apart; and every row of its table of input limits is one of them.
func TestSecurityDocBounds(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "security.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	pkgs := map[string]map[string]ast.Expr{}
	rows := map[string]bool{}
	for _, b := range securityBounds {
		values, ok := pkgs[b.pkg]
		if !ok {
			values = declaredValues(t, filepath.Join("..", b.pkg))
			pkgs[b.pkg] = values
		}
		v := evalConst(t, values, b.name)
		want := b.doc
		if b.figure != nil {
			want = strings.Replace(want, "{}", b.figure(v), 1)
		} else if strings.Contains(want, "{}") {
			t.Fatalf("%s: a figure without a way to write it", b.name)
		}
		i := strings.Index(text, want)
		if i < 0 {
			t.Errorf("docs/security.md does not say %q (%s.%s is %s)", want, b.pkg, b.name, v.ExactString())
			continue
		}
		start := strings.LastIndexByte(text[:i+1], '\n') + 1
		rows[text[start:start+strings.IndexByte(text[start:], '\n')]] = true
	}
	table := strings.Split(text[strings.Index(text, "| limit | default | on passing it |"):], "\n")
	for _, line := range table[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		if !rows[line] {
			t.Errorf("docs/security.md's row %.80q… states a bound no test reads from the code: add it to securityBounds", line)
		}
	}
}

// declaredValues returns the expressions the package in dir gives its package-level
// constants and variables, by name.
func declaredValues(t *testing.T, dir string) map[string]ast.Expr {
	t.Helper()
	fset := gotoken.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]ast.Expr{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || (g.Tok != gotoken.CONST && g.Tok != gotoken.VAR) {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i < len(vs.Values) {
						out[n.Name] = vs.Values[i]
					}
				}
			}
		}
	}
	return out
}

// evalConst evaluates the constant expression the package gives name: literals, names of the
// package's own, parentheses, conversions and arithmetic.
func evalConst(t *testing.T, values map[string]ast.Expr, name string) constant.Value {
	t.Helper()
	e, ok := values[name]
	if !ok {
		t.Fatalf("no constant or variable %s", name)
	}
	var eval func(ast.Expr) constant.Value
	eval = func(e ast.Expr) constant.Value {
		switch e := e.(type) {
		case *ast.BasicLit:
			return constant.MakeFromLiteral(e.Value, e.Kind, 0)
		case *ast.Ident:
			return evalConst(t, values, e.Name)
		case *ast.ParenExpr:
			return eval(e.X)
		case *ast.CallExpr: // a conversion, int64(x)
			if len(e.Args) == 1 {
				return eval(e.Args[0])
			}
		case *ast.BinaryExpr:
			x, y := eval(e.X), eval(e.Y)
			if e.Op == gotoken.SHL || e.Op == gotoken.SHR {
				s, _ := constant.Uint64Val(y)
				return constant.Shift(x, e.Op, uint(s))
			}
			return constant.BinaryOp(x, e.Op, y)
		}
		t.Fatalf("%s: cannot evaluate %T", name, e)
		return nil
	}
	v := eval(e)
	if v.Kind() == constant.Float {
		if r, ok := constant.Val(v).(*big.Rat); ok && r.IsInt() {
			v = constant.Make(r.Num())
		}
	}
	return v
}
