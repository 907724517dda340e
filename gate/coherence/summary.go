package coherence

// Add appends one task's result to the summary and updates Total and Mean. Mean is the sum of
// the RCS values in the order added divided by their number, the harness's sum(scores)/len.
func (s *Summary) Add(r TaskResult) {
	s.Tasks = append(s.Tasks, r)
	s.Total++
	s.sum += r.RCS
	s.Mean = s.sum / float64(s.Total)
}

// Summarize returns the summary of results, in their order. With no results, Total and Mean are
// 0 and Tasks is empty (not nil), so the JSON report says "tasks": [].
func Summarize(results []TaskResult) Summary {
	s := Summary{Tasks: make([]TaskResult, 0, len(results))}
	for _, r := range results {
		s.Add(r)
	}
	return s
}
