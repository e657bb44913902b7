/**
 * Someone's text (a name, a description) inside a Hebrew sentence is a Unicode isolate (FSI…PDI), so Latin
 * text ending in punctuation keeps its order: "Google Ads (campaign #4)." rather than ".Google Ads (campaign #4)".
 * Plain text keeps the isolates; HTML turns them into <bdi> (emails and the supplier pages share this).
 */
const FSI = '\u2068';
const PDI = '\u2069';
const ISOLATES = /[\u2066-\u2069]/g;
/** Text that is all Hebrew letters, spaces and Hebrew punctuation reads the same isolated or not. */
const PLAIN_RTL = /^[\u0590-\u05FF\uFB1D-\uFB4F\s'"\-]*$/;

/** The text as an isolate; isolates it brought along are dropped, so ours always pair up. */
export function iso(text: string): string {
  const clean = text.replace(ISOLATES, '');
  return PLAIN_RTL.test(clean) ? clean : FSI + clean + PDI;
}

/** Already-escaped HTML with our isolates as <bdi> (mail clients that drop the control characters still honour the element). */
export const isolatesToBdi = (escaped: string) => escaped.replaceAll(FSI, '<bdi dir="auto">').replaceAll(PDI, '</bdi>');

/** The text without isolates, where markup cannot go (a <title>). */
export const bare = (text: string) => text.replace(ISOLATES, '');
