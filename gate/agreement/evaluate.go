package agreement

import (
	"bytes"
	"context"
	"hash/maphash"

	"github.com/agentgate/agentgate/gate/input"
	"github.com/agentgate/agentgate/gate/pipeline"
	"github.com/agentgate/agentgate/gate/profile"
)

// EvaluateMerged reads merged pairs files and computes their summary: the result, and the
// error, of Compute(LoadMerged(files, p), nil, p), in a fraction of the time and memory.
//
// The pairs are decoded on workers goroutines (gate/pipeline; 0 means one per core), and
// each batch of pairs becomes its report items, arbitrated, at once: reasons (never scored),
// citations and retrieved ids (read by the arbitration only) are validated but never kept,
// and the items are kept as Items: 16 bytes an item besides its qid. The calling goroutine
// takes the batches in file order, counts the confusion matrix and, in the default profile,
// looks for a repeated qid as LoadMerged does. It stops at ctx's end with ctx's error.
func EvaluateMerged(ctx context.Context, files []string, p profile.Profile, workers int) (Summary, error) {
	return evaluateMerged(ctx, files, p, pipeline.Options{Workers: workers})
}

func evaluateMerged(ctx context.Context, files []string, p profile.Profile, o pipeline.Options) (Summary, error) {
	seed := maphash.MakeSeed()
	newWorker := func() *pairWorker { return &pairWorker{dec: recordDecoder{p: p, noReason: true}, seed: seed} }
	m := &pairMerger{}
	if p != profile.Reference {
		m.hashes = &qidHashes{seed: seed}
	}
	err := pipeline.Run(ctx, files, o, newWorker, (*pairWorker).work, m.merge)
	if err == nil {
		err = m.repeated()
	}
	if err != nil {
		return Summary{}, err
	}
	s := Summary{Items: m.items.items(), Files: m.perFile}
	m.tally.summarize(&s, p)
	return s, nil
}

// pairBatch is what a worker makes of a batch of pairs records.
type pairBatch struct {
	items itemsBuilder // arbitrated
	keys  []uint64     // default profile: each item's hashQID
	nums  []int32      // default profile: the items whose qid is a JSON number
	lines lineRuns     // default profile: the items' lines
	cols  columns      // default profile: the items' columns
	tally tally
}

// pairWorker decodes pairs with its own decoder, whose memory is reused.
type pairWorker struct {
	dec  recordDecoder
	raw  pairRaw
	seed maphash.Seed
}

// work decodes the batch's records into out.
func (w *pairWorker) work(b *pipeline.Batch, out *pairBatch) (int, error) {
	*out = pairBatch{items: out.items, keys: out.keys[:0], nums: out.nums[:0], lines: out.lines[:0], cols: out.cols[:0]}
	out.items.reset()
	d, r := &w.dec, &w.raw
	def := d.p != profile.Reference
	// The decoder checks the UTF-8 of strings as it scans them, and outside strings JSON is
	// ASCII: a record it reads whole is UTF-8, and one it cannot read gets the error of a
	// line that is not UTF-8 first, as with Records.
	err := b.RecordsUnchecked(func(rec input.Record) error {
		d.arena, d.ids = d.arena[:0], d.ids[:0]
		if !d.pair(rec.Data, r) {
			if err := rec.CheckUTF8(); err != nil {
				return err
			}
			return d.errorFor(rec)
		}
		i := len(out.items.recs)
		qid := d.arena[r.qid.off : r.qid.off+r.qid.n]
		sc, schText := w.label(&r.sch)
		ac, audText := w.label(&r.aud)
		outOfScope := r.cits[1] > r.cits[0] && !w.citationsInScope()
		final, why := arbitrateCodes(r.prov || r.cons, outOfScope, sc, ac)
		if codes := [4]uint8{sc, ac, final, why}; sc != other && ac != other {
			addCodes(&out.items, qid, codes)
		} else {
			addItem(&out.items, qid, codes, [4][]byte{schText, audText})
		}
		out.tally.addCode(sc, ac)
		if def {
			var x uint64
			if r.qidNum {
				x = hashQID(w.seed, string(qid), true)
				out.nums = append(out.nums, int32(i))
			} else {
				x = maphash.Bytes(w.seed, qid) // hashQID of a string qid
			}
			out.keys = append(out.keys, x)
			out.lines.add(i, rec.Line)
			out.cols.add(i, rec.Col)
		}
		return nil
	})
	return len(out.items.recs), err
}

// label returns the code of a judgement's label (see Items), and, for a label outside the
// four (kept by the reference profile only), the label itself.
func (w *pairWorker) label(j *judgementRaw) (uint8, []byte) {
	if j.code != other {
		return j.code, nil
	}
	return other, w.dec.arena[j.labelRaw.off : j.labelRaw.off+j.labelRaw.n]
}

// citationsInScope reports whether every citation of the decoded pair is among its
// retrieved ids: subset, over the decoder's arena.
func (w *pairWorker) citationsInScope() bool {
	d, r := &w.dec, &w.raw
	cits, ret := d.ids[r.cits[0]:r.cits[1]], d.ids[r.ret[0]:r.ret[1]]
	str := func(sp span) []byte { return d.arena[sp.off : sp.off+sp.n] }
	if len(cits)*len(ret) > 256 {
		set := make(map[string]struct{}, len(ret))
		for _, sp := range ret {
			set[string(str(sp))] = struct{}{}
		}
		for _, sp := range cits {
			if _, ok := set[string(str(sp))]; !ok {
				return false
			}
		}
		return true
	}
next:
	for _, c := range cits {
		for _, x := range ret {
			if bytes.Equal(str(c), str(x)) {
				continue next
			}
		}
		return false
	}
	return true
}

// pairMerger takes the batches in file order.
type pairMerger struct {
	items  itemsBuilder
	tally  tally
	hashes *qidHashes // default profile
	files  []fileStart
	lines  lineRuns
	cols   columns
	// perFile counts the items of each file, for Summary.Files.
	perFile []FileItems
}

// fileStart is the index of the first item of a file.
type fileStart struct {
	first int
	name  string
}

func (m *pairMerger) merge(b *pipeline.Batch, out *pairBatch, err error) error {
	if out != nil && len(out.items.recs) > 0 {
		base := len(m.items.recs)
		need := base + len(out.items.recs)
		m.items.recs = pipeline.Grow(m.items.recs, need, b.Seen, b.Total)
		m.items.text = pipeline.Grow(m.items.text, len(m.items.text)+len(out.items.text), b.Seen, b.Total)
		if m.hashes != nil && need > m.hashes.cap() {
			m.hashes.grow(pipeline.Estimate(need, b.Seen, b.Total))
		}
		m.items.appendBuilder(&out.items)
		m.tally.addAll(&out.tally)
		if k := len(m.perFile); k == 0 || m.perFile[k-1].File != b.File {
			m.perFile = append(m.perFile, FileItems{File: b.File})
		}
		m.perFile[len(m.perFile)-1].Items += len(out.items.recs)
		if m.hashes != nil {
			if len(m.files) == 0 || m.files[len(m.files)-1].name != b.File {
				m.files = append(m.files, fileStart{first: base, name: b.File})
			}
			k := 0
			for i, x := range out.keys {
				num := k < len(out.nums) && int(out.nums[k]) == i
				if num {
					k++
				}
				m.hashes.addHash(base+i, x, num)
			}
			m.lines.addAll(base, out.lines)
			m.cols.addAll(base, out.cols)
		}
	}
	if err != nil && input.IsInputError(err) {
		// A repeat read before the error comes first in the file.
		if rerr := m.repeated(); rerr != nil {
			return rerr
		}
	}
	return err
}

// repeated returns the error for the first item read whose qid an earlier one has, if any.
func (m *pairMerger) repeated() error {
	if m.hashes == nil {
		return nil
	}
	second, first, found := m.hashes.firstRepeat(m.items.qid)
	if !found {
		return nil
	}
	return repeatError(m.items.qid(second), m.hashes.isNum(second), m.fileOf(second), m.lines.at(second), m.cols.at(second), m.fileOf(first), m.lines.at(first))
}

// fileOf returns the file of item i.
func (m *pairMerger) fileOf(i int) string {
	name := ""
	for _, f := range m.files {
		if f.first > i {
			break
		}
		name = f.name
	}
	return name
}
