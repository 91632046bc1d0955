// What a link in an answer shows of where it goes. A terminal opens an OSC 8 hyperlink's target,
// not its text, so text that reads as one place must never hide another:
// - the target follows the text whenever the text is not the target itself
//   (`github.com (https://evil.example)`), a mailto address too (`support@github.com
//   (mailto:x@evil.example)`; an address written as itself stays as it is);
// - the host is shown as the resolver reads it when that is not what is written: an
//   internationalised host in its ASCII form, so a Cyrillic `а` is not taken for a Latin `a`
//   (`https://аpple.com (https://xn--pple-43d.com/)`), `0x7f.1` as 127.0.0.1;
// - a target with user info before its host (`https://github.com@evil.example`) names its host;
// - a target that held a hidden character (marked `⟨U+202E⟩` before the answer was parsed) is
//   shown, never linked.

export interface LinkShown {
  /** what follows the link's text (` (target)`), when the text alone would not say where it goes */
  note?: string;
  /** the target to link to; absent when it must not be linked */
  link?: string;
}

const MARK = /⟨U\+[0-9A-F]{4,6}⟩/;

function parse(href: string): URL | undefined {
  try {
    return new URL(href);
  } catch {
    return undefined;
  }
}

/** How a link whose text reads `text` and whose target is `href` is shown. */
export function linkTarget(text: string, href: string): LinkShown {
  const note = text !== href ? { note: ` (${href})` } : {};
  if (MARK.test(href)) return note;
  const link = href;
  const url = parse(href);
  if (!url) return { ...note, link };
  if (url.protocol === 'mailto:') {
    let address = url.pathname;
    try {
      address = decodeURIComponent(address);
    } catch {
      /* shown as written */
    }
    return { ...(text !== address ? note : {}), link };
  }
  // the host as written, lower-cased, against the host the URL parser resolves (ASCII, numbers read)
  const rewritten = url.host !== '' && !href.toLowerCase().includes(url.host);
  const userinfo = url.username !== '' || url.password !== '';
  if (!rewritten && !userinfo) return { ...note, link };
  // linked as shown: the ASCII form is what opens
  return { note: ` (${rewritten ? url.href : href}${userinfo ? `, host ${url.hostname}` : ''})`, link: rewritten ? url.href : href };
}
