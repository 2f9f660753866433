// Which time zone a recipient's schedule is read in (docs/campaigns.md, "Schedule"): the row's own
// `timezone`; else the zone of its number's country, when that country keeps one zone; else the
// schedule's `timezone`. A country code spanning zones (+1, +7, +55, +61 …) or a country with
// islands an hour apart (+34's Canaries, +351's Azores) tells nothing, so it is not in the table.
// The runner applies the same rule in its claim's SQL (queries/runner.ts), from this table.

/** Country calling codes of countries with a single time zone, and that zone. Calling codes are prefix-free. */
export const SINGLE_ZONE_CODES: Readonly<Record<string, string>> = {
  "20": "Africa/Cairo",
  "27": "Africa/Johannesburg",
  "30": "Europe/Athens",
  "31": "Europe/Amsterdam",
  "32": "Europe/Brussels",
  "33": "Europe/Paris",
  "36": "Europe/Budapest",
  "39": "Europe/Rome",
  "40": "Europe/Bucharest",
  "41": "Europe/Zurich",
  "43": "Europe/Vienna",
  "44": "Europe/London",
  "45": "Europe/Copenhagen",
  "46": "Europe/Stockholm",
  "47": "Europe/Oslo",
  "48": "Europe/Warsaw",
  "49": "Europe/Berlin",
  "51": "America/Lima",
  "54": "America/Argentina/Buenos_Aires",
  "57": "America/Bogota",
  "58": "America/Caracas",
  "60": "Asia/Kuala_Lumpur",
  "63": "Asia/Manila",
  "65": "Asia/Singapore",
  "66": "Asia/Bangkok",
  "81": "Asia/Tokyo",
  "82": "Asia/Seoul",
  "84": "Asia/Ho_Chi_Minh",
  "86": "Asia/Shanghai",
  "90": "Europe/Istanbul",
  "91": "Asia/Kolkata",
  "92": "Asia/Karachi",
  "234": "Africa/Lagos",
  "254": "Africa/Nairobi",
  "353": "Europe/Dublin",
  "358": "Europe/Helsinki",
  "420": "Europe/Prague",
  "421": "Europe/Bratislava",
  "852": "Asia/Hong_Kong",
  "966": "Asia/Riyadh",
  "971": "Asia/Dubai",
  "972": "Asia/Jerusalem",
};

/** The zone an E.164 number's country keeps, when it keeps one. */
export function zoneOfNumber(phoneNumber: string): string | null {
  for (const length of [1, 2, 3]) {
    const zone = SINGLE_ZONE_CODES[phoneNumber.slice(1, 1 + length)];
    if (phoneNumber.startsWith("+") && zone) return zone;
  }
  return null;
}

/** The zone a recipient's window is read in: its row's, its number's country's, else the schedule's. */
export const recipientZone = (recipient: { timezone: string | null; phoneNumber: string }, scheduleZone: string): string =>
  recipient.timezone ?? zoneOfNumber(recipient.phoneNumber) ?? scheduleZone;
