// The XML check of a console command's write: cold code, since the agent's own
// writes are never parsed again and the regular expression would stay compiled.

/**
 * Why `s` does not look like a well-formed XML document (one root, tags
 * balanced, no text outside the root), or undefined. A quick check before
 * sending, not a validating parser.
 */
export function xmlProblem(s: string): string | undefined {
  const re = /<(?:!--[\s\S]*?--|\?[\s\S]*?\?|!\[CDATA\[[\s\S]*?\]\]|!DOCTYPE[^<>]*|(\/?)([A-Za-z_][\w.:-]*)(?:\s[^<>]*?)?(\/?))>|[^<]+|</g;
  const open: string[] = [];
  let roots = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(s))) {
    const t = m[0];
    const name = m[2];
    if (t === '<') return 'a "<" does not start a valid tag';
    if (t.charAt(0) !== '<') {
      if (!open.length && t.trim()) return 'text outside the root element';
    } else if (name !== undefined) {
      if (m[1]) {
        const top = open.pop();
        if (top !== name) return '</' + name + '> does not close ' + (top ? '<' + top + '>' : 'any element');
      } else {
        if (!open.length && ++roots > 1) return 'more than one root element';
        if (!m[3]) open.push(name);
      }
    }
  }
  if (open.length) return '<' + open[open.length - 1] + '> is not closed';
  return roots ? undefined : 'no root element';
}
