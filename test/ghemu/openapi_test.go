package ghemu

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// miniSpec is a hand-written description exercising every keyword the
// validator implements, so it is tested without the npm data.
const miniSpec = `{
  "openapi": "3.0.3",
  "paths": {
    "/things/{id}": {
      "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
      "get": {
        "operationId": "things/get",
        "parameters": [{"name": "page", "in": "query", "schema": {"type": "integer", "minimum": 1}}],
        "responses": {
          "200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/thing"}}}},
          "404": {"description": "nf", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/basic-error"}}}}
        }
      },
      "patch": {
        "operationId": "things/update",
        "requestBody": {"required": true, "content": {"application/json": {"schema": {
          "type": "object", "required": ["name"], "additionalProperties": false,
          "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 5, "pattern": "^[a-z]+$"}}
        }}}},
        "responses": {"204": {"description": "done"}}
      }
    },
    "/odd": {"get": {"operationId": "odd/get", "responses": {"200": {"description": "ok",
      "content": {"application/json": {"schema": {"type": "string", "not": {"enum": ["x"]}}}}}}}}
  },
  "components": {
    "schemas": {
      "basic-error": {"type": "object", "properties": {"message": {"type": "string"}}},
      "thing": {
        "type": "object",
        "required": ["id", "kind", "owner"],
        "properties": {
          "id": {"type": "integer", "format": "int64"},
          "kind": {"type": "string", "enum": ["a", "b"]},
          "when": {"type": "string", "format": "date-time", "nullable": true},
          "link": {"type": "string", "format": "uri"},
          "owner": {"$ref": "#/components/schemas/nullable-owner"},
          "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
          "extra": {"type": "object", "additionalProperties": {"type": "integer"}},
          "both": {"allOf": [{"type": "object", "required": ["x"]}, {"type": "object", "required": ["y"]}]},
          "either": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]},
          "view": {
            "oneOf": [{"$ref": "#/components/schemas/pub"}, {"$ref": "#/components/schemas/priv"}],
            "discriminator": {"propertyName": "t", "mapping": {"public": "#/components/schemas/pub", "private": "#/components/schemas/priv"}}
          },
          "one": {"oneOf": [{"type": "integer"}, {"type": "number"}]}
        }
      },
      "nullable-owner": {"type": "object", "nullable": true, "required": ["login"], "properties": {"login": {"type": "string"}}},
      "pub": {"type": "object", "required": ["t"], "properties": {"t": {"type": "string"}}},
      "priv": {"type": "object", "required": ["t", "secret"], "properties": {"t": {"type": "string"}, "secret": {"type": "boolean"}}}
    }
  }
}`

func mini(t *testing.T) *Spec {
	t.Helper()
	s, err := ParseSpec([]byte(miniSpec))
	if err != nil {
		t.Fatalf("ParseSpec: %v", err)
	}
	return s
}

var jsonHeader = http.Header{"Content-Type": {"application/json; charset=utf-8"}}

// TestValidatorKeywords checks each keyword both ways: a conforming value
// passes, and each departure is reported with its location and reason.
func TestValidatorKeywords(t *testing.T) {
	s := mini(t)
	good := `{"id": 7, "kind": "a", "when": null, "link": "https://x.test/a", "owner": null,
	  "tags": ["p"], "extra": {"n": 1}, "both": {"x": 1, "y": 2}, "either": true,
	  "view": {"t": "private", "secret": true}, "unknown-field": "allowed"}`
	if err := s.ValidateResponse("GET", "/things/7", 200, jsonHeader, []byte(good)); err != nil {
		t.Fatalf("valid response rejected: %v", err)
	}
	cases := []struct {
		name, body, want string
	}{
		{"wrong type", `{"id": "7", "kind": "a", "owner": null}`, `$.id: expected integer, got string`},
		{"not integer", `{"id": 7.5, "kind": "a", "owner": null}`, `$.id: expected integer, got number`},
		{"required", `{"id": 7, "owner": null}`, `$: required property "kind" is missing`},
		{"enum", `{"id": 7, "kind": "c", "owner": null}`, `$.kind: "c" is not one of ["a","b"]`},
		{"null not nullable", `{"id": 7, "kind": null, "owner": null}`, `$.kind: null is not allowed (type string, not nullable)`},
		{"date-time", `{"id": 7, "kind": "a", "owner": null, "when": "yesterday"}`, `$.when: "yesterday" is not an RFC 3339 date-time`},
		{"uri", `{"id": 7, "kind": "a", "owner": null, "link": "/relative"}`, `$.link: "/relative" is not an absolute URI`},
		{"ref nested", `{"id": 7, "kind": "a", "owner": {"login": 3}}`, `$.owner.login: expected string, got integer`},
		{"items", `{"id": 7, "kind": "a", "owner": null, "tags": ["x", 2]}`, `$.tags[1]: expected string, got integer`},
		{"maxItems", `{"id": 7, "kind": "a", "owner": null, "tags": ["x", "y", "z"]}`, `$.tags: 3 items, above maxItems 2`},
		{"additionalProperties schema", `{"id": 7, "kind": "a", "owner": null, "extra": {"n": "1"}}`, `$.extra.n: expected integer, got string`},
		{"allOf", `{"id": 7, "kind": "a", "owner": null, "both": {"x": 1}}`, `$.both: required property "y" is missing (allOf[1])`},
		{"anyOf", `{"id": 7, "kind": "a", "owner": null, "either": "s"}`, `$.either: matches none of anyOf`},
		{"discriminator", `{"id": 7, "kind": "a", "owner": null, "view": {"t": "private"}}`, `$.view: required property "secret" is missing`},
		{"oneOf ambiguous", `{"id": 7, "kind": "a", "owner": null, "one": 3}`, `$.one: matches 2 branches of oneOf [0 1], exactly one allowed`},
		{"int64", `{"id": 99999999999999999999, "kind": "a", "owner": null}`, `$.id: 99999999999999999999 does not fit int64`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := s.ValidateResponse("GET", "/things/7", 200, jsonHeader, []byte(c.body))
			if err == nil {
				t.Fatalf("accepted %s", c.body)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q\ndoes not contain %q", err, c.want)
			}
			if !strings.HasPrefix(err.Error(), "response 200 to GET /things/7 (things/get) breaks GitHub's OpenAPI description:") {
				t.Fatalf("error does not say which response: %q", err)
			}
		})
	}
}

func TestValidatorRequestsAndStatuses(t *testing.T) {
	s := mini(t)
	check := func(err error, want string) {
		t.Helper()
		if want == "" {
			if err != nil {
				t.Fatalf("unexpected violation: %v", err)
			}
			return
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("got %v, want it to contain %q", err, want)
		}
	}
	q := func(s string) url.Values { v, _ := url.ParseQuery(s); return v }
	check(s.ValidateRequest("GET", "/things/7", q("page=2"), nil, nil), "")
	check(s.ValidateRequest("GET", "/things/x", nil, nil, nil), `path id: "x" is not a number`)
	check(s.ValidateRequest("GET", "/things/7", q("page=0"), nil, nil), `query page: 0 is below the minimum 1`)
	check(s.ValidateRequest("GET", "/things/7", q("page=two"), nil, nil), `query page: "two" is not a number`)
	check(s.ValidateRequest("GET", "/things/7", q("sort=up"), nil, nil), `query sort: not a documented parameter of things/get`)
	check(s.ValidateRequest("GET", "/things/7", nil, nil, []byte(`{}`)), `body: things/get takes no request body`)
	check(s.ValidateRequest("PATCH", "/things/7", nil, jsonHeader, nil), `body: required but empty`)
	check(s.ValidateRequest("PATCH", "/things/7", nil, jsonHeader, []byte(`{"name":"abc"}`)), "")
	check(s.ValidateRequest("PATCH", "/things/7", nil, jsonHeader, []byte(`{"name":"abc","x":1}`)), `$.x: property not allowed (additionalProperties: false)`)
	check(s.ValidateRequest("PATCH", "/things/7", nil, jsonHeader, []byte(`{"name":"abcdef"}`)), `$.name: length 6 is above maxLength 5`)
	check(s.ValidateRequest("PATCH", "/things/7", nil, jsonHeader, []byte(`{"name":"AB"}`)), `$.name: "AB" does not match pattern "^[a-z]+$"`)
	check(s.ValidateRequest("PATCH", "/things/7", nil, http.Header{"Content-Type": {"text/plain"}}, []byte(`{"name":"abc"}`)), `Content-Type "text/plain", want application/json`)
	check(s.ValidateRequest("PATCH", "/things/7", nil, jsonHeader, []byte(`{"name":`)), `not JSON`)
	check(s.ValidateRequest("DELETE", "/things/7", nil, nil, nil), `path /things/{id} is documented but not for this method`)
	check(s.ValidateRequest("GET", "/nowhere", nil, nil, nil), `no such path`)

	check(s.ValidateResponse("PATCH", "/things/7", 204, http.Header{}, nil), "")
	check(s.ValidateResponse("PATCH", "/things/7", 204, http.Header{}, []byte(`{}`)), `status 204 is documented without a body`)
	check(s.ValidateResponse("PATCH", "/things/7", 200, jsonHeader, []byte(`{}`)), `status 200 is not documented for things/update`)
	// Undocumented error statuses are held to GitHub's basic-error shape.
	check(s.ValidateResponse("PATCH", "/things/7", 502, jsonHeader, []byte(`{"message":"Server Error"}`)), "")
	check(s.ValidateResponse("PATCH", "/things/7", 502, jsonHeader, []byte(`{"message":502}`)), `undocumented error status, checked as basic-error): $.message: expected string, got integer`)
	// A keyword the validator does not implement is a violation, not a pass.
	check(s.ValidateResponse("GET", "/odd", 200, jsonHeader, []byte(`"y"`)), `schema keyword "not" is not supported by this validator`)
}

// TestRealSpecOperations checks that GitHub's own description has the five
// operations the emulator serves, under their operation ids, and that the
// validator rejects a realistic mistake in an issue comment.
func TestRealSpecOperations(t *testing.T) {
	s := TestSpec(t)
	for _, c := range []struct{ method, path, id string }{
		{"GET", "/user", "users/get-authenticated"},
		{"GET", "/repos/o/r/issues/7/comments", "issues/list-comments"},
		{"POST", "/repos/o/r/issues/7/comments", "issues/create-comment"},
		{"PATCH", "/repos/o/r/issues/comments/99", "issues/update-comment"},
		{"DELETE", "/repos/o/r/issues/comments/99", "issues/delete-comment"},
	} {
		op, err := s.Operation(c.method, c.path)
		if err != nil {
			t.Fatalf("%s %s: %v", c.method, c.path, err)
		}
		if op.ID != c.id {
			t.Errorf("%s %s: operation %q, want %q", c.method, c.path, op.ID, c.id)
		}
	}
	e := New(Config{Owner: "o", Repo: "r"})
	c := e.Seed(7, ActionsBot(), "hi")
	req, _ := http.NewRequest("GET", "http://h.test/repos/o/r/issues/7/comments", nil)
	obj := e.render(req, c)
	raw, _ := json.Marshal(obj)
	if err := s.ValidateResponse("POST", "/repos/o/r/issues/7/comments", 201, jsonHeader, raw); err != nil {
		t.Fatalf("rendered comment rejected: %v", err)
	}
	delete(obj, "user")
	obj["created_at"] = "2024-01-01 00:00:00"
	raw, _ = json.Marshal(obj)
	err := s.ValidateResponse("POST", "/repos/o/r/issues/7/comments", 201, jsonHeader, raw)
	if err == nil {
		t.Fatal("comment without user accepted")
	}
	for _, want := range []string{`$: required property "user" is missing`, `$.created_at: "2024-01-01 00:00:00" is not an RFC 3339 date-time`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	// The request body must be an object with a string body.
	err = s.ValidateRequest("POST", "/repos/o/r/issues/7/comments", nil, jsonHeader, []byte(`{"text":"x"}`))
	if err == nil || !strings.Contains(err.Error(), `$: required property "body" is missing`) {
		t.Fatalf("request without body field: %v", err)
	}
}
