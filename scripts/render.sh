#!/usr/bin/env bash
# make render: the golden reports of entrypoint/testdata/render as GitHub shows a PR comment
# (cmark-gfm, GitHub's stylesheet, mermaid 11, headless Chromium at a comment's 900 px), with
# the render-comment tool of ../shared/tools (RENDER_TOOL overrides where it is). It fails on a
# mermaid chart that does not render or whose line is mermaid's default #ECECFF (invisible on
# GitHub's light theme), a table wider than the comment, or a table cell whose rendered text
# shows a backtick or a backslash (an escape that did not do what was meant). Screenshots go to
# .render/shots/: look at them. Not part of `make test`: it needs Chromium, cmark-gfm and npm.
#
# Set up once (Debian): apt-get install -y chromium cmark-gfm
set -euo pipefail
cd "$(dirname "$0")/.."
tool=${RENDER_TOOL:-../shared/tools/render-comment}
work=.render
for cmd in chromium cmark-gfm node npm; do
	command -v "$cmd" >/dev/null || { echo "make render: $cmd is missing (apt-get install -y chromium cmark-gfm nodejs npm)" >&2; exit 1; }
done
[ -f "$tool/check.js" ] || { echo "make render: no render-comment tool at $tool (set RENDER_TOOL)" >&2; exit 1; }

# The words first: the golden reports are what the gate writes today.
go test ./entrypoint -run '^TestRender' -count=1

mkdir -p "$work/shots"
if [ ! -d "$work/tool/node_modules" ] || ! cmp -s "$tool/package.json" "$work/tool/package.json"; then
	rm -rf "$work/tool" && cp -r "$tool" "$work/tool" && chmod -R u+w "$work/tool"
	(cd "$work/tool" && PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund --loglevel=error)
fi
SHOTS="$work/shots" node "$work/tool/check.js" 900 entrypoint/testdata/render/*.md > "$work/result.json"
node - "$work/result.json" <<'JS'
const r = JSON.parse(require('fs').readFileSync(process.argv[2], 'utf8'));
let bad = 0;
const fail = (f, what) => { console.error(`make render: ${f}: ${what}`); bad++; };
for (const [f, x] of Object.entries(r)) {
  x.mermaid.forEach((m, i) => {
    if (!m.ok) return fail(f, `mermaid chart ${i + 1}: ${m.err}`);
    if (!m.strokes.length) fail(f, `mermaid chart ${i + 1} draws no line`);
    for (const s of m.strokes) if (s === 'rgb(236, 236, 255)' || s === 'none') fail(f, `mermaid chart ${i + 1}: line colour ${s}, unreadable on white`);
  });
  x.tables.forEach((t, i) => { if (t.overflow) fail(f, `table ${i + 1} scrolls sideways at 900 px`); });
  for (const c of x.ticks) fail(f, `a cell shows a backtick or backslash: ${c}`);
  console.log(`${f}: ${x.mermaid.length} chart(s), ${x.tables.length} table(s), ${x.text} characters of text`);
}
if (bad) process.exit(1);
JS
echo "make render: screenshots in $work/shots/ (open them and read them as a reviewer would)"
