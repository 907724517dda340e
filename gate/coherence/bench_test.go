package coherence

import (
	"strings"
	"testing"

	"github.com/agentgate/agentgate/gate/profile"
)

// A realistic task: an intent, the agent's restatement of it, and its answer, as an eval suite
// of a support agent would record them.
const (
	benchIntent = `Review the customer's order history and, if the last delivery arrived damaged, ` +
		`issue a refund for the damaged items only. Do not refund shipping unless the customer ` +
		`paid for express delivery. Explain the decision to the customer in two or three sentences.`
	benchUnderstanding = `The customer says their most recent delivery arrived damaged. I need to check ` +
		`the order history, confirm which items in the last delivery were damaged, and refund only ` +
		`those items. Shipping is refunded only when express delivery was paid for. Then I explain ` +
		`the decision briefly.`
	benchAction = `I looked up order #48213, delivered on 12 March. Two of the five items (the ceramic ` +
		`bowls, $18.50 each) were reported broken with photos attached, so I refunded $37.00 to the ` +
		`original card. You paid for standard shipping, so the $6.95 delivery fee is not refunded. ` +
		`The refund should appear within 5-7 business days; reply here if it does not.`
)

// benchText is a few kilobytes of ordinary English prose of the kind agents write.
var benchText = strings.Repeat(benchIntent+"\n"+benchUnderstanding+"\n"+benchAction+"\n"+
	`Before answering, the agent read the repository's contributing guide, ran the failing test `+
	`suite twice to rule out flakiness, and traced the error to a missing nil check in the `+
	`configuration loader. It proposed a two-line fix, added a regression test that reproduces `+
	`the crash with an empty configuration file, and noted that the same pattern appears in `+
	`three other loaders, which it left unchanged to keep the pull request small and reviewable.`+"\n", 4)

// benchTypographic is benchText as language models often write it, with typographic
// apostrophes and dashes: no longer ASCII, so it takes the tokenizer's general path.
var benchTypographic = strings.NewReplacer("'", "\u2019", " - ", " \u2014 ", ", ", "\u2009, ").Replace(benchText)

// BenchmarkTokenize measures the tokenizer with its interning and counting, in steady state
// (every word already known to the Scorer), over realistic English text, ASCII or not.
func BenchmarkTokenize(b *testing.B) {
	for _, p := range []profile.Profile{profile.Reference, profile.Default} {
		for _, text := range []struct{ name, text string }{{"ascii", benchText}, {"typographic", benchTypographic}} {
			b.Run(string(p)+"/"+text.name, func(b *testing.B) {
				ref := p == profile.Reference
				var s Scorer
				s.begin()
				s.addText(text.text, ref, 0)
				b.SetBytes(int64(len(text.text)))
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					s.begin()
					s.addText(text.text, ref, 0)
				}
			})
		}
	}
}

// BenchmarkScore measures scoring one realistic task (about 900 bytes of text) end to end.
func BenchmarkScore(b *testing.B) {
	task := Task{ID: "refund-01", Intent: benchIntent, Understanding: benchUnderstanding, Action: benchAction}
	size := int64(len(task.Intent) + len(task.Understanding) + len(task.Action))
	for _, p := range []profile.Profile{profile.Reference, profile.Default} {
		b.Run(string(p), func(b *testing.B) {
			var s Scorer
			s.Score(task, p)
			b.SetBytes(size)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				s.Score(task, p)
			}
		})
	}
}
