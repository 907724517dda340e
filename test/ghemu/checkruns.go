package ghemu

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"unicode/utf8"
)

// CheckRun is one stored check run, with every annotation it was given, in order.
type CheckRun struct {
	ID          int64             `json:"id"`
	Name        string            `json:"name"`
	HeadSHA     string            `json:"head_sha"`
	Status      string            `json:"status"`
	Conclusion  string            `json:"conclusion"`
	DetailsURL  string            `json:"details_url"`
	Title       string            `json:"title"`
	Summary     string            `json:"summary"`
	Annotations []CheckAnnotation `json:"annotations"`
	Author      Identity          `json:"author"`
}

// CheckAnnotation is one annotation of a check run as the client sent it.
type CheckAnnotation struct {
	Path            string `json:"path"`
	StartLine       int    `json:"start_line"`
	EndLine         int    `json:"end_line"`
	AnnotationLevel string `json:"annotation_level"`
	Message         string `json:"message"`
	Title           string `json:"title,omitempty"`
}

// GitHub's limits on a check run's output.
const (
	// MaxCheckAnnotations is the most annotations one create or update may carry.
	MaxCheckAnnotations = 50
	// MaxCheckSummaryChars is the longest output.summary (and output.text).
	MaxCheckSummaryChars = 65535
)

// docCheckRuns is the documentation link of the check-runs answers.
const (
	docCreateCheckRun = "https://docs.github.com/rest/checks/runs#create-a-check-run"
	docUpdateCheckRun = "https://docs.github.com/rest/checks/runs#update-a-check-run"
)

// CheckRuns returns copies of the stored check runs, oldest first.
func (e *Emulator) CheckRuns() []CheckRun {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]CheckRun, len(e.checkRuns))
	for i, c := range e.checkRuns {
		out[i] = *c
		out[i].Annotations = append([]CheckAnnotation(nil), c.Annotations...)
	}
	return out
}

// checkRunInput is the body of a create or update.
type checkRunInput struct {
	Name       *string `json:"name"`
	HeadSHA    *string `json:"head_sha"`
	Status     *string `json:"status"`
	Conclusion *string `json:"conclusion"`
	DetailsURL *string `json:"details_url"`
	Output     *struct {
		Title       *string           `json:"title"`
		Summary     *string           `json:"summary"`
		Annotations []CheckAnnotation `json:"annotations"`
	} `json:"output"`
}

var sha = regexp.MustCompile(`^[0-9a-f]{40}$`)

// serveCheckRuns answers POST /repos/{o}/{r}/check-runs and PATCH …/check-runs/{id}. A token
// that may not write (ReadOnly, or NoChecks: a job without checks: write) is answered 403
// "Resource not accessible by integration", as GitHub answers the GITHUB_TOKEN.
func (e *Emulator) serveCheckRuns(rec *response, r *http.Request, id Identity, segs []string, raw []byte) {
	doc := docCreateCheckRun
	if len(segs) == 5 {
		doc = docUpdateCheckRun
	}
	switch {
	case len(segs) == 4 && r.Method == http.MethodPost, len(segs) == 5 && r.Method == http.MethodPatch:
	default:
		rec.error(http.StatusNotFound, "Not Found", docRoot, nil)
		return
	}
	if id.ReadOnly || id.NoChecks {
		rec.error(http.StatusForbidden, "Resource not accessible by integration", doc, nil)
		return
	}
	var in checkRunInput
	if err := json.Unmarshal(raw, &in); err != nil {
		rec.error(http.StatusBadRequest, "Problems parsing JSON", doc, nil)
		return
	}
	invalid := func(field, msg string) {
		rec.error(http.StatusUnprocessableEntity, "Validation Failed", doc,
			[]map[string]any{{"resource": "CheckRun", "code": "custom", "field": field, "message": msg}})
	}
	if o := in.Output; o != nil {
		switch {
		case o.Summary == nil:
			invalid("output", "summary wasn't supplied")
			return
		case utf8.RuneCountInString(*o.Summary) > MaxCheckSummaryChars:
			invalid("output", fmt.Sprintf("summary is too long (maximum is %d characters)", MaxCheckSummaryChars))
			return
		case len(o.Annotations) > MaxCheckAnnotations:
			invalid("output", fmt.Sprintf("only %d annotations are allowed per request", MaxCheckAnnotations))
			return
		}
	}
	e.mu.Lock()
	var c *CheckRun
	if len(segs) == 4 {
		if in.Name == nil || *in.Name == "" || in.HeadSHA == nil || !sha.MatchString(*in.HeadSHA) {
			e.mu.Unlock()
			invalid("head_sha", "name and a head_sha of a commit in the repository are required")
			return
		}
		c = &CheckRun{ID: e.nextID, Name: *in.Name, HeadSHA: *in.HeadSHA, Status: "queued", Author: id, Annotations: []CheckAnnotation{}}
		e.nextID++
		e.checkRuns = append(e.checkRuns, c)
	} else {
		n, err := strconv.ParseInt(segs[4], 10, 64)
		for _, x := range e.checkRuns {
			if err == nil && x.ID == n {
				c = x
			}
		}
		if c == nil {
			e.mu.Unlock()
			rec.error(http.StatusNotFound, "Not Found", doc, nil)
			return
		}
		if in.Name != nil && *in.Name != "" {
			c.Name = *in.Name
		}
	}
	if in.Status != nil {
		c.Status = *in.Status
	}
	if in.Conclusion != nil {
		c.Conclusion, c.Status = *in.Conclusion, "completed"
	}
	if in.DetailsURL != nil {
		c.DetailsURL = *in.DetailsURL
	}
	if o := in.Output; o != nil {
		if o.Title != nil {
			c.Title = *o.Title
		}
		c.Summary = *o.Summary
		c.Annotations = append(c.Annotations, o.Annotations...) // GitHub appends
	}
	e.tickLocked()
	cp := *c
	e.mu.Unlock()
	rec.changed = true
	status := http.StatusOK
	if len(segs) == 4 {
		status = http.StatusCreated
	}
	rec.json(status, e.renderCheckRun(r, cp))
}

// renderCheckRun is GitHub's check-run object for c: with a Spec, GitHub's own example
// patched with c's fields; without, those fields alone.
func (e *Emulator) renderCheckRun(r *http.Request, c CheckRun) map[string]any {
	api, web := e.baseURLs(r)
	url := fmt.Sprintf("%s/repos/%s/%s/check-runs/%d", api, e.cfg.Owner, e.cfg.Repo, c.ID)
	obj := map[string]any{}
	if e.cfg.Spec != nil {
		if ex, err := e.cfg.Spec.Example("check-run"); err == nil {
			obj, _ = ex.(map[string]any)
		}
	}
	var conclusion any
	if c.Conclusion != "" {
		conclusion = c.Conclusion
	}
	obj["id"] = c.ID
	obj["node_id"] = nodeID("CR_", c.ID)
	obj["name"] = c.Name
	obj["head_sha"] = c.HeadSHA
	obj["status"] = c.Status
	obj["conclusion"] = conclusion
	obj["url"] = url
	obj["html_url"] = fmt.Sprintf("%s/%s/%s/runs/%d", web, e.cfg.Owner, e.cfg.Repo, c.ID)
	obj["details_url"] = c.DetailsURL
	obj["output"] = map[string]any{
		"title": c.Title, "summary": c.Summary, "text": nil,
		"annotations_count": len(c.Annotations), "annotations_url": url + "/annotations",
	}
	obj["pull_requests"] = []any{}
	if c.Author.Installation {
		obj["app"] = actionsApp(api, web)
	}
	return obj
}
