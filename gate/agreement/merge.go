package agreement

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/profile"
)

// Part is the agreement section of one shard's report, and the report's name for messages.
type Part struct {
	Name    string
	Summary *Summary
}

// Merge combines the agreement sections of disjoint shards of one suite, each read from
// merged pairs files, into the section one run over all their files gives (docs/design.md#shards): the
// items in the order of their files (by name, as input.Expand orders them) and, within a
// file, as read; the matrix and every measure computed again from the items, never from the
// shards' figures. In the default profile a qid in two shards is an error, as a repeated qid
// is in one run; qids are compared by their text, so the number 7 and the string "7", which
// one run tells apart, count as one here.
//
// A section joined from scholar and auditor files cannot be merged: its items are sorted by
// qid across all the files, which the shards did not see together. Neither can a section
// whose items do not add up to its Files.
func Merge(parts []Part, p profile.Profile) (*Summary, error) {
	type run struct {
		file  string
		part  int
		items Items
		from  int
		n     int
	}
	var runs []run
	for i, pt := range parts {
		s := pt.Summary
		if s.Joined {
			return nil, &input.Error{File: pt.Name, Msg: "its agreement was joined by qid from scholar and auditor files and sorted by qid across all of them, so shards of it cannot be merged exactly: give the merge itself the scholar and auditor files, or label into merged pairs files"}
		}
		if len(s.Unmatched) > 0 {
			return nil, &input.Error{File: pt.Name, Msg: "its agreement lists unmatched qids, which only scholar and auditor files give: it cannot be merged"}
		}
		from := 0
		for _, f := range s.Files {
			if f.Items < 0 || f.Items > s.Items.Len()-from {
				break
			}
			runs = append(runs, run{file: f.File, part: i, items: s.Items, from: from, n: f.Items})
			from += f.Items
		}
		if from != s.Items.Len() {
			return nil, &input.Error{File: pt.Name, Msg: fmt.Sprintf("agreement.files account for %d items, but agreement.items holds %d: the report was not written by agentgate gate", from, s.Items.Len())}
		}
	}
	slices.SortStableFunc(runs, func(a, b run) int { return cmp.Compare(a.file, b.file) })
	for i := 1; i < len(runs); i++ {
		if a, b := runs[i-1], runs[i]; a.file == b.file {
			return nil, &input.Error{File: parts[b.part].Name, Msg: fmt.Sprintf("pairs file %s was read by shard %s too: shards must read disjoint files", input.Quote(a.file), parts[a.part].Name)}
		}
	}

	out := &Summary{}
	var b itemsBuilder
	var t tally
	type firstAt struct{ file, part string }
	seen := map[string]firstAt{}
	for _, r := range runs {
		if r.n > 0 {
			out.Files = append(out.Files, FileItems{File: r.file, Items: r.n})
		}
		for i := r.from; i < r.from+r.n; i++ {
			it := r.items.At(i)
			if p != profile.Reference {
				if f, dup := seen[it.QID]; dup {
					return nil, &input.Error{File: parts[r.part].Name, Msg: fmt.Sprintf("qid %s of %s is repeated: it is first in %s (shard %s); every item needs its own qid", input.Quote(it.QID), r.file, f.file, f.part)}
				}
				seen[it.QID] = firstAt{r.file, parts[r.part].Name}
			}
			codes := codesOf(it.Scholar, it.Auditor, it.Final, it.Why)
			addItem(&b, it.QID, codes, [4]string{it.Scholar, it.Auditor, it.Final, it.Why})
			t.addCode(codes[0], codes[1])
		}
	}
	out.Items = b.items()
	t.summarize(out, p)
	return out, nil
}

// FilesOf counts the pairs of each file, in order, for Summary.Files: what Compute's caller
// sets when the pairs were read from merged pairs files.
func FilesOf(pairs []Pair) []FileItems {
	var out []FileItems
	for i := range pairs {
		if k := len(out); k == 0 || out[k-1].File != pairs[i].File {
			out = append(out, FileItems{File: pairs[i].File})
		}
		out[len(out)-1].Items++
	}
	return out
}
