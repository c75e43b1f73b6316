/**
 * Number, duration and timestamp parsing for the JUnit reader (the rules are documented in
 * packages/junit/README.md, "Rules").
 */

const PLAIN = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
/** "1,234" "12,345,678.5": comma thousands separators, optional dot decimals. */
const COMMA_GROUPS = /^[1-9]\d{0,2}(?:,\d{3})+(?:\.\d*)?$/;
/** "1.234,5" or "1.234.567": dot thousands separators, optional comma decimals. */
const DOT_GROUPS_COMMA_DECIMAL = /^[1-9]\d{0,2}(?:\.\d{3})+,\d*$/;
const DOT_GROUPS_ONLY = /^[1-9]\d{0,2}(?:\.\d{3}){2,}$/;
/** "1,5" "0,123": one decimal comma. */
const DECIMAL_COMMA = /^\d+,\d+$/;
/** "1,234": one comma followed by exactly three digits, first group 1-999: ambiguous. */
const AMBIGUOUS_COMMA = /^[1-9]\d{0,2},\d{3}$/;
/** "01:02:03.5", "02:03.5": clock notation ([h:]mm:ss[.f]). */
const CLOCK = /^(?:(\d+):)?(\d{1,2}):(\d{1,2}(?:\.\d+)?)$/;

/**
 * Digits with at most one dot, starting with a digit ("0.004", "12", "3."): what nearly every
 * `time` is, and a subset of PLAIN that Number() reads exactly; checked without a regular
 * expression because it runs once per test case.
 */
function isDecimal(s: string): boolean {
  const n = s.length;
  if (n === 0 || n > 15) return false;
  let dot = false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x2e && i > 0 && !dot) dot = true;
    else if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

function finite(n: number): number | null {
  return Number.isFinite(n) && n >= 0 ? n : null;
}

/**
 * A duration in seconds (a `time` attribute), or null where absent, empty or unreadable.
 * Accepted: plain decimals ("1.5", ".5", "2", "1e-3"); comma thousands separators with optional
 * dot decimals ("1,234.5", "1,234,567"); dot thousands separators with comma decimals
 * ("1.234,5", "1.234.567"); a single decimal comma ("1,5", "0,123") unless it reads equally as a
 * thousands separator ("1,234": 1-3 digits not starting with 0, a comma, exactly 3 digits), which
 * is ambiguous and gives null; clock notation "[h:]mm:ss[.f]". Negative or non-finite: null.
 */
export function parseTime(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  if (isDecimal(raw)) return Number(raw);
  const s = raw.trim();
  if (s === '') return null;
  if (PLAIN.test(s)) return finite(Number(s));
  if (COMMA_GROUPS.test(s)) {
    if (!s.includes('.') && AMBIGUOUS_COMMA.test(s)) return null;
    return finite(Number(s.replaceAll(',', '')));
  }
  if (DOT_GROUPS_COMMA_DECIMAL.test(s)) return finite(Number(s.replaceAll('.', '').replace(',', '.')));
  if (DOT_GROUPS_ONLY.test(s)) return finite(Number(s.replaceAll('.', '')));
  if (DECIMAL_COMMA.test(s)) return finite(Number(s.replace(',', '.')));
  const clock = CLOCK.exec(s);
  if (clock) {
    const hours = clock[1] === undefined ? 0 : Number(clock[1]);
    const minutes = Number(clock[2]);
    const seconds = Number(clock[3]);
    if (minutes >= 60 || seconds >= 60) return null;
    return finite(hours * 3600 + minutes * 60 + seconds);
  }
  return null;
}

/** A count attribute (`tests`, `failures`, ...): a non-negative integer ("5", " 5 ", "5.0"), else undefined. */
export function parseCount(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const m = /^\s*(\d+)(?:\.0*)?\s*$/.exec(raw);
  if (!m) return undefined;
  const n = Number(m[1]);
  return Number.isSafeInteger(n) ? n : undefined;
}

// ---------------------------------------------------------------------------------------------
// ISO 8601 timestamps

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function daysInMonth(y: number, m: number): number {
  return [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1] ?? 0;
}

/** ISO weekday of a day number: Monday 1 ... Sunday 7 (1970-01-01 was a Thursday). */
function isoWeekday(days: number): number {
  return ((((days + 3) % 7) + 7) % 7) + 1;
}

function weeksInYear(y: number): number {
  const jan1 = isoWeekday(daysFromCivil(y, 1, 1));
  return jan1 === 4 || (jan1 === 3 && isLeap(y)) ? 53 : 52;
}

/** Day number of the date part, or null where invalid. */
function parseDate(s: string): number | null {
  let m: RegExpExecArray | null;
  // Calendar dates: YYYY-MM-DD, YYYYMMDD, YYYY-MM (reduced precision: first day of the month).
  if ((m = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/.exec(s)) || (m = /^(\d{4})(\d{2})(\d{2})$/.exec(s))) {
    const y = Number(m[1]);
    const mo = Number(m[2]);
    const d = m[3] === undefined ? 1 : Number(m[3]);
    if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return null;
    return daysFromCivil(y, mo, d);
  }
  // Week dates: YYYY-Www-D, YYYY-Www, YYYYWwwD, YYYYWww.
  if ((m = /^(\d{4})-?W(\d{2})(?:-?([1-7]))?$/.exec(s))) {
    const y = Number(m[1]);
    const w = Number(m[2]);
    const d = m[3] === undefined ? 1 : Number(m[3]);
    if (w < 1 || w > weeksInYear(y)) return null;
    const jan4 = daysFromCivil(y, 1, 4);
    const week1Monday = jan4 - (isoWeekday(jan4) - 1);
    return week1Monday + (w - 1) * 7 + (d - 1);
  }
  // Ordinal dates: YYYY-DDD, YYYYDDD.
  if ((m = /^(\d{4})-?(\d{3})$/.exec(s))) {
    const y = Number(m[1]);
    const doy = Number(m[2]);
    if (doy < 1 || doy > (isLeap(y) ? 366 : 365)) return null;
    return daysFromCivil(y, 1, 1) + doy - 1;
  }
  return null;
}

/** Seconds into the day of the time part (hh[:mm[:ss]] or hh[mm[ss]], fraction on the last one). */
function parseClock(s: string): number | null {
  const m = /^(\d{2})(?::(\d{2})(?::(\d{2}))?)?(?:[.,](\d+))?$/.exec(s) ?? /^(\d{2})(?:(\d{2})(\d{2})?)?(?:[.,](\d+))?$/.exec(s);
  if (!m) return null;
  const h = Number(m[1]);
  const mi = m[2] === undefined ? 0 : Number(m[2]);
  const sec = m[3] === undefined ? 0 : Number(m[3]);
  const fraction = m[4] === undefined ? 0 : Number(`0.${m[4]}`);
  if (mi > 59 || sec > 60) return null;
  if (h > 24 || (h === 24 && (mi !== 0 || sec !== 0 || fraction !== 0))) return null;
  // The fraction applies to the last component written.
  const unit = m[3] !== undefined ? 1 : m[2] !== undefined ? 60 : 3600;
  return h * 3600 + mi * 60 + sec + fraction * unit;
}

/** Offset east of UTC in seconds ("Z", "+02:00", "+0200", "+02", "-05:30"), or null if invalid. */
function parseZone(s: string): number | null {
  if (s === '' || s === 'Z' || s === 'z') return 0;
  const m = /^([+-])(\d{2})(?::?(\d{2}))?$/.exec(s);
  if (!m) return null;
  const h = Number(m[2]);
  const mi = m[3] === undefined ? 0 : Number(m[3]);
  if (h > 23 || mi > 59) return null;
  return (m[1] === '-' ? -1 : 1) * (h * 3600 + mi * 60);
}

/**
 * An ISO 8601 timestamp as epoch seconds (fractions kept), or null where absent or unreadable.
 * Date: calendar (YYYY-MM-DD, YYYYMMDD, YYYY-MM), week (YYYY-Www-D, YYYYWwwD, YYYY-Www) or
 * ordinal (YYYY-DDD, YYYYDDD). Optional time after "T", "t" or a space: hh:mm:ss, hh:mm, hh or
 * the basic hhmmss / hhmm, with a "." or "," fraction on the last component; 24:00 is the end of
 * the day. Optional zone: Z, ±hh:mm, ±hhmm, ±hh (a space before it is tolerated). No zone: UTC.
 */
export function parseTimestamp(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const s = raw.trim();
  const m = /^([0-9W-]+)(?:[Tt ]([0-9:.,]+?))? ?([Zz]|[+-][0-9:]+)?$/.exec(s);
  if (!m || m[1] === undefined) return null;
  const days = parseDate(m[1]);
  if (days === null) return null;
  const clock = m[2] === undefined ? 0 : parseClock(m[2]);
  if (clock === null) return null;
  const zone = parseZone(m[3] ?? '');
  if (zone === null) return null;
  // A zone without a time ("2020-09-01Z") is not ISO 8601.
  if (m[2] === undefined && m[3] !== undefined) return null;
  return days * 86400 + clock - zone;
}
