// A campaign's schedule (docs/campaigns.md, "Schedule"): the ISO weekdays and the daily window
// `HH:MM`–`HH:MM` in which a recipient may be called, read in the recipient's own time zone. The
// maths is here, pure, with the instant given (tests pass a fake clock): the local weekday and time
// of an instant in a zone (Intl, which Workers ship with full time-zone data), whether the window is
// open, and when it next opens, across daylight-saving changes.
import type { CampaignSchedule } from "../../db/schema";

const DAY_MS = 86_400_000;

/** The wall clock of an instant in a zone. */
export interface LocalTime {
  year: number;
  month: number;
  day: number;
  /** ISO weekday: 1 = Monday … 7 = Sunday. */
  weekday: number;
  /** Minutes since local midnight. */
  minutes: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(zone, f);
  }
  return f;
}

/** Whether `zone` is an IANA zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    formatterFor(zone);
    return true;
  } catch {
    return false;
  }
}

function wallClock(at: number, zone: string) {
  const parts: Record<string, number> = {};
  for (const p of formatterFor(zone).formatToParts(at)) if (p.type !== "literal") parts[p.type] = Number(p.value);
  return parts as { year: number; month: number; day: number; hour: number; minute: number; second: number };
}

/** The zone's offset from UTC at an instant, in ms (east positive). */
function offsetAt(at: number, zone: string): number {
  const w = wallClock(at, zone);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(at / 1000) * 1000;
}

/** ISO weekday of a calendar date. */
const isoWeekday = (year: number, month: number, day: number) => ((new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 6) % 7) + 1;

export function localTime(at: Date, zone: string): LocalTime {
  const w = wallClock(at.getTime(), zone);
  return { year: w.year, month: w.month, day: w.day, weekday: isoWeekday(w.year, w.month, w.day), minutes: w.hour * 60 + w.minute };
}

/** `HH:MM` as minutes since midnight (`24:00` is the end of the day). */
export function clockMinutes(hhmm: string): number {
  const m = /^(\d{2}):(\d{2})$/.exec(hhmm);
  if (!m) throw new Error(`not a HH:MM time: ${hhmm}`);
  return Number(m[1]) * 60 + Number(m[2]);
}

/**
 * The instant a wall-clock time of a local date has in a zone, read as Temporal's `compatible`
 * disambiguation reads it: a time the zone passes twice (the autumn change) is the earlier one; a
 * time it skips (the hour a spring change jumps over) is moved on by the gap (02:30 on a night
 * that jumps from 02:00 to 03:00 is 03:30).
 */
export function zonedInstant(year: number, month: number, day: number, minutes: number, zone: string): Date {
  const naive = Date.UTC(year, month - 1, day, 0, minutes);
  // The offsets in force half a day before and after: any change near the time lies between them.
  const before = offsetAt(naive - DAY_MS / 2, zone);
  const after = offsetAt(naive + DAY_MS / 2, zone);
  const reads = (t: number) => {
    const w = wallClock(t, zone);
    return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute) === naive;
  };
  const valid = [naive - before, naive - after].filter(reads);
  return new Date(valid.length > 0 ? Math.min(...valid) : naive - before);
}

const prevDay = (weekday: number) => (weekday === 1 ? 7 : weekday - 1);

/**
 * Whether the window is open at `at` in `zone`. A window whose end is before its start runs past
 * midnight (`20:00`–`02:00`: the evening of a listed day and the small hours after it); a start
 * equal to its end is the whole day.
 */
export function isOpen(schedule: Pick<CampaignSchedule, "days" | "start" | "end">, zone: string, at: Date): boolean {
  const { weekday, minutes } = localTime(at, zone);
  const [start, end] = [clockMinutes(schedule.start), clockMinutes(schedule.end)];
  const listed = (d: number) => schedule.days.includes(d);
  if (start === end) return listed(weekday);
  if (start < end) return listed(weekday) && minutes >= start && minutes < end;
  return (listed(weekday) && minutes >= start) || (listed(prevDay(weekday)) && minutes < end);
}

/** When the window next opens in `zone`: `at` itself when open now; null when no day is listed. */
export function nextOpening(schedule: Pick<CampaignSchedule, "days" | "start" | "end">, zone: string, at: Date): Date | null {
  if (isOpen(schedule, zone, at)) return at;
  const start = clockMinutes(schedule.start) === clockMinutes(schedule.end) ? 0 : clockMinutes(schedule.start);
  const today = localTime(at, zone);
  for (let k = 0; k <= 8; k++) {
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day + k));
    const [y, m, d] = [date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()];
    if (!schedule.days.includes(isoWeekday(y, m, d))) continue;
    const opens = zonedInstant(y, m, d, start, zone);
    if (opens.getTime() > at.getTime()) return opens;
  }
  return null;
}
