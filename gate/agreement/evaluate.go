package agreement

import (
	"bytes"
	"context"

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
	newWorker := func() *pairWorker { return &pairWorker{dec: decoder{p: p, noReason: true}} }
	m := &pairMerger{p: p}
	if err := pipeline.Run(ctx, files, o, newWorker, (*pairWorker).work, m.merge); err != nil {
		return Summary{}, err
	}
	s := Summary{Items: m.items.items(), Files: m.perFile}
	m.tally.summarize(&s, p)
	return s, nil
}

// pairBatch is what a worker makes of a batch of pairs records.
type pairBatch struct {
	items  itemsBuilder // arbitrated
	places []itemPlace  // default profile: each item's record
	tally  tally
}

// itemPlace is where an item's record is, and whether its qid is a JSON number: what the
// merger needs to find and report a repeated qid.
type itemPlace struct {
	line, col int
	num       bool
}

// pairWorker decodes pairs with its own decoder, whose memory is reused.
type pairWorker struct {
	dec decoder
	rec pairRec
}

// work decodes the batch's records into out.
func (w *pairWorker) work(b *pipeline.Batch, out *pairBatch) (int, error) {
	*out = pairBatch{items: out.items, places: out.places[:0]}
	out.items.reset()
	d, r := &w.dec, &w.rec
	// The decoder checks the UTF-8 of strings as it scans them, and outside strings JSON is
	// ASCII: a record it reads whole is UTF-8, and one it cannot read gets the error of a
	// line that is not UTF-8 first, as with Records.
	err := b.RecordsUnchecked(func(rec input.Record) error {
		if err := d.pair(rec.Data, r); err != nil {
			if err := rec.CheckUTF8(); err != nil {
				return err
			}
			return recordError(rec, err)
		}
		qid := d.text(r.qid)
		sc, ac := r.sch.code, r.aud.code
		outOfScope := len(d.cits) > 0 && !d.citationsInScope()
		final, why := arbitrateCodes(r.prov || r.cons, outOfScope, sc, ac)
		if codes := [4]uint8{sc, ac, final, why}; sc != other && ac != other {
			addCodes(&out.items, qid, codes)
		} else {
			addItem(&out.items, qid, codes, [4][]byte{d.text(r.sch.label), d.text(r.aud.label)})
		}
		out.tally.addCode(sc, ac)
		if d.p != profile.Reference {
			out.places = append(out.places, itemPlace{rec.Line, rec.Col, r.qidNum})
		}
		return nil
	})
	return len(out.items.recs), err
}

// citationsInScope reports whether every citation of the decoded pair is among its
// retrieved ids: subset, over the decoder's texts.
func (d *decoder) citationsInScope() bool {
	if len(d.cits)*len(d.ret) > 256 { // subset's map rather than a quadratic search
		texts := func(sps []span) []string {
			out := make([]string, len(sps))
			for i, sp := range sps {
				out[i] = string(d.text(sp))
			}
			return out
		}
		return subset(texts(d.cits), texts(d.ret))
	}
next:
	for _, c := range d.cits {
		for _, x := range d.ret {
			if bytes.Equal(d.text(c), d.text(x)) {
				continue next
			}
		}
		return false
	}
	return true
}

// pairMerger takes the batches in file order.
type pairMerger struct {
	items itemsBuilder
	tally tally
	p     profile.Profile
	seen  *repeats // default profile
	// perFile counts the items of each file, for Summary.Files.
	perFile []FileItems
}

func (m *pairMerger) merge(b *pipeline.Batch, out *pairBatch, err error) error {
	if out == nil || len(out.items.recs) == 0 {
		return err
	}
	if m.seen == nil && m.p != profile.Reference {
		m.seen = newRepeats(pipeline.Estimate(len(out.items.recs), b.Seen, b.Total))
	}
	// A repeat read before the batch's error comes first in the file.
	for i, pl := range out.places {
		if rerr := m.seen.add(out.items.qidBytes(i), pl.num, b.File, pl.line, pl.col); rerr != nil {
			return rerr
		}
	}
	need := len(m.items.recs) + len(out.items.recs)
	m.items.recs = pipeline.Grow(m.items.recs, need, b.Seen, b.Total)
	m.items.text = pipeline.Grow(m.items.text, len(m.items.text)+len(out.items.text), b.Seen, b.Total)
	m.items.appendBuilder(&out.items)
	m.tally.addAll(&out.tally)
	if k := len(m.perFile); k == 0 || m.perFile[k-1].File != b.File {
		m.perFile = append(m.perFile, FileItems{File: b.File})
	}
	m.perFile[len(m.perFile)-1].Items += len(out.items.recs)
	return err
}
