/**
 * metav1.Time's decoding (apimachinery pkg/apis/meta/v1/time.go UnmarshalJSON: a JSON string,
 * parsed with Go's time.Parse(time.RFC3339, …)) and the errors Go's time package words for a
 * text that is not RFC 3339: `parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x"
 * as "2006"`, or `…: month out of range`. MicroTime's layout only differs in fixed microseconds,
 * which Go's parser accepts in RFC3339 too.
 */
const LAYOUT = '2006-01-02T15:04:05Z07:00';

/** The layout's elements in order: numbers with their digit count, literals and the zone. */
const ELEMENTS: { elem: string; digits?: number; range?: [number, number, string] }[] = [
  { elem: '2006', digits: 4 },
  { elem: '-' },
  { elem: '01', digits: 2, range: [1, 12, 'month'] },
  { elem: '-' },
  { elem: '02', digits: 2 },
  { elem: 'T' },
  { elem: '15', digits: 2, range: [0, 23, 'hour'] },
  { elem: ':' },
  { elem: '04', digits: 2, range: [0, 59, 'minute'] },
  { elem: ':' },
  { elem: '05', digits: 2, range: [0, 59, 'second'] },
  { elem: 'Z07:00' },
];

const daysIn = (month: number, year: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** Undefined when `text` parses as RFC 3339, else Go's error text. */
export function goTimeError(text: string): string | undefined {
  const cannot = (rest: string, elem: string) =>
    `parsing time ${JSON.stringify(text)} as ${JSON.stringify(LAYOUT)}: cannot parse ${JSON.stringify(rest)} as ${JSON.stringify(elem)}`;
  const outOfRange = (what: string) => `parsing time ${JSON.stringify(text)}: ${what} out of range`;
  let rest = text;
  const values: number[] = [];
  for (const { elem, digits, range } of ELEMENTS) {
    if (digits !== undefined) {
      const head = rest.slice(0, digits);
      if (!new RegExp(`^[0-9]{${digits}}$`).test(head)) return cannot(rest, elem);
      const n = Number(head);
      if (range && (n < range[0] || n > range[1])) return outOfRange(range[2]);
      values.push(n);
      rest = rest.slice(digits);
      // Fractional seconds are accepted after the seconds though the layout has none.
      if (elem === '05') rest = rest.replace(/^[.,][0-9]+/, '');
    } else if (elem === 'Z07:00') {
      if (rest.startsWith('Z')) rest = rest.slice(1);
      else if (/^[+-][0-9]{2}:[0-9]{2}/.test(rest)) rest = rest.slice(6);
      else return cannot(rest, elem);
    } else {
      if (!rest.startsWith(elem)) return cannot(rest, elem);
      rest = rest.slice(elem.length);
    }
  }
  if (rest.length > 0) return `parsing time ${JSON.stringify(text)}: extra text: ${JSON.stringify(rest)}`;
  const [year, month, day] = values as [number, number, number];
  if (day < 1 || day > daysIn(month, year)) return outOfRange('day');
  return undefined;
}
