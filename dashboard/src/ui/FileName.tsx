/** Hebrew, Arabic and the presentation forms: the characters that run right to left. */
const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/;

/**
 * A file name as its own direction island, as the supplier pages show it. A Hebrew name runs right to left
 * with its Latin/digit tail ("17.pdf") kept as one left-to-right island: plain isolation shows
 * "חשבונית 17.pdf" as "pdf.17 חשבונית" (the dot takes the Hebrew direction and splits the number from the extension).
 */
export function FileName({ name }: { name: string }) {
  const chars = [...name];
  let lastRtl = -1;
  chars.forEach((c, i) => {
    if (RTL.test(c)) lastRtl = i;
  });
  if (lastRtl < 0) return <bdi dir="ltr">{name}</bdi>;
  const tail = chars.slice(lastRtl + 1).join('');
  const lead = tail.length - tail.trimStart().length;
  if (!tail.trim()) return <bdi dir="rtl">{name}</bdi>;
  return (
    <bdi dir="rtl">
      {chars.slice(0, lastRtl + 1).join('') + tail.slice(0, lead)}
      <bdi dir="ltr">{tail.slice(lead)}</bdi>
    </bdi>
  );
}
