// Writes a prometheusAlerts object as the commented, readable rules file shipped in rules/:
// block scalars for multi-line expressions, folded descriptions, each rule's hidden section:: and
// comment:: as YAML comments. std.manifestYamlDoc would quote every key and drop the comments.
local width = 100;

// Whether `part` occurs in `text` (std.strReplace is native; std.findSubstr is not, and slow).
local contains(text, part) = std.length(std.strReplace(text, part, '')) != std.length(text);

local lines(text) = std.split(std.rstripChars(text, '\n'), '\n');

// A plain YAML scalar when that reads back as the same string, JSON quotes otherwise.
local scalar(s) =
  local str = std.toString(s);
  local plain = std.length(str) > 0
                && contains('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', str[0])
                && !contains(str, ': ')
                && !contains(str, ' #')
                && !std.endsWith(str, ':')
                && !contains(str, '\n');
  if plain then str else std.escapeStringJson(str);

// Greedy word wrap of a one-line text into lines of at most `room` characters.
// A template action ({{ ... }}) stays on one line: the pieces between spaces are glued back
// while one is open ("{{" seen after the last "}}").
local lastIndex(piece, pattern) =
  local found = if contains(piece, pattern) then std.findSubstr(pattern, piece) else [];
  if std.length(found) == 0 then -1 else found[std.length(found) - 1];
local words(text) =
  local step(acc, piece) =
    local opens = lastIndex(piece, '{{');
    local closes = lastIndex(piece, '}}');
    local inside = if opens > closes then true else if closes > opens then false else acc.inside;
    if acc.inside then
      { inside: inside, words: acc.words[:std.length(acc.words) - 1] + [acc.words[std.length(acc.words) - 1] + ' ' + piece] }
    else
      { inside: inside, words: acc.words + [piece] };
  std.foldl(step, std.split(text, ' '), { inside: false, words: [] }).words;

local wrap(text, room) =
  local words_ = words(text);
  local step(acc, word) =
    if acc.line == '' then acc { line: word }
    else if std.length(acc.line) + 1 + std.length(word) <= room then acc { line: acc.line + ' ' + word }
    else acc { done+: [acc.line], line: word };
  local end = std.foldl(step, words_, { done: [], line: '' });
  end.done + [end.line];

local commentLines(text) = [if l == '' then '#' else '# ' + l for l in lines(text)];

local indented(prefix, ls) = [if l == '' then '' else prefix + l for l in ls];

local field(indent, key, value) =
  local pad = std.repeat(' ', indent);
  if std.isString(value) && contains(value, '\n') then
    [pad + key + ': |'] + indented(pad + '  ', lines(value))
  else if key == 'description' && std.length(value) > width - indent - 2 - 13 then
    [pad + key + ': >-'] + indented(pad + '  ', wrap(value, width - indent - 2 - 2))
  else
    [pad + key + ': ' + scalar(value)];

local mapping(indent, key, obj) =
  if std.length(std.objectFields(obj)) == 0 then []
  else
    [std.repeat(' ', indent) + key + ':']
    + std.flattenArrays([field(indent + 2, k, obj[k]) for k in std.objectFields(obj)]);

local comments(rule) =
  (if std.objectHasAll(rule, 'section') then
     local head = '# ---- ' + rule.section + ' ';
     [head + std.repeat('-', width - 8 - std.length(head))]
   else [])
  + (if std.objectHasAll(rule, 'comment') then commentLines(rule.comment) else []);

local ruleLines(rule) =
  local kind = if std.objectHas(rule, 'alert') then 'alert' else 'record';
  local pad = '      ';
  (if kind == 'alert' || std.objectHasAll(rule, 'section') then [''] else [])
  + [pad + l for l in comments(rule)]
  + [pad + '- ' + kind + ': ' + rule[kind]]
  + field(8, 'expr', rule.expr)
  + (if std.objectHas(rule, 'for') then field(8, 'for', rule['for']) else [])
  + mapping(8, 'labels', (if std.objectHas(rule, 'labels') then rule.labels else {}))
  + (if std.objectHas(rule, 'annotations') then
       // runbook_url, summary, description first, in that order; any others after them.
       local a = rule.annotations;
       local first = [k for k in ['runbook_url', 'summary', 'description'] if std.objectHas(a, k)];
       local rest = [k for k in std.objectFields(a) if !std.member(first, k)];
       ['        annotations:'] + std.flattenArrays([field(10, k, a[k]) for k in first + rest])
     else []);

local groupLines(group) =
  ['  - name: ' + scalar(group.name)]
  + (if std.objectHas(group, 'interval') then ['    interval: ' + group.interval] else [])
  + ['    rules:']
  + std.flattenArrays([
    local r = ruleLines(group.rules[i]);
    // No blank line right after "rules:".
    if i == 0 && r[0] == '' then r[1:] else r
    for i in std.range(0, std.length(group.rules) - 1)
  ]);

{
  // header: the file's leading comment (lines without '# '). The result has no final newline:
  // jsonnet -S -m adds it.
  render(alerts, header)::
    std.join('\n', commentLines(header)
                   + ['groups:']
                   + std.flattenArrays([groupLines(g) for g in alerts.groups])),
}
