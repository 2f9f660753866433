// The CSV reader of campaign uploads (src/campaigns/csv.ts): UTF-8 only (a BOM dropped, other
// encodings refused with their line), and RFC 4180 records with the line each starts on.
import { describe, expect, it } from "vitest";
import { CsvError, CsvLimitError, decodeCsv, parseCsv } from "../../../src/campaigns/csv";

const bytes = (...parts: Array<string | number[]>) =>
  new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...new TextEncoder().encode(p)] : p)));

const fields = (text: string) => parseCsv(text).map((r) => r.fields);

describe("decodeCsv", () => {
  it("drops a UTF-8 BOM and keeps every other character, accents and emoji included", () => {
    expect(decodeCsv(bytes([0xef, 0xbb, 0xbf], "phone_number,name\n+14155550100,Zoë 👋\n"))).toBe(
      "phone_number,name\n+14155550100,Zoë 👋\n",
    );
  });

  it("refuses Windows-1252 bytes, naming the line they are on", () => {
    // "Zoë" as Excel's Windows CSV writes it: 0xEB is not UTF-8 on its own.
    const file = bytes("phone_number,name\n+14155550100,Ada\n+14155550101,Zo", [0xeb], "\n");
    expect(() => decodeCsv(file)).toThrow(CsvError);
    expect(() => decodeCsv(file)).toThrow(/not UTF-8: line 3 has bytes of another encoding/);
  });

  it('refuses UTF-16 (a spreadsheet\'s "Unicode text") by its BOM', () => {
    expect(() => decodeCsv(bytes([0xff, 0xfe], [0x70, 0x00]))).toThrow(/UTF-16 encoded; save it as UTF-8/);
  });
});

describe("parseCsv", () => {
  it("reads CRLF and LF line ends alike, and a last record without a line end", () => {
    expect(fields("a,b\r\n1,2\n3,4")).toEqual([
      ["a", "b"],
      ["1", "2"],
      ["3", "4"],
    ]);
  });

  it("reads quoted fields: commas, doubled quotes, line breaks, and an empty quoted field", () => {
    const records = parseCsv('phone,note\n+1415,"Smith, ""Al"""\n+1416,"two\r\nlines"\n+1417,""\n');
    expect(records.map((r) => r.fields)).toEqual([
      ["phone", "note"],
      ["+1415", 'Smith, "Al"'],
      ["+1416", "two\r\nlines"],
      ["+1417", ""],
    ]);
    // A record's line is where it starts: the one after a two-line field is on line 5.
    expect(records.map((r) => r.line)).toEqual([1, 2, 3, 5]);
  });

  it("skips blank lines, keeping the lines of the records after them", () => {
    const records = parseCsv("a\n\n1\r\n\r\n2\n\n");
    expect(records).toEqual([
      { line: 1, fields: ["a"] },
      { line: 3, fields: ["1"] },
      { line: 5, fields: ["2"] },
    ]);
  });

  it("keeps empty fields, trailing ones too", () => {
    expect(fields("a,,c,\n")).toEqual([["a", "", "c", ""]]);
  });

  it("refuses a quote inside an unquoted field, text after a closing quote, and an unclosed quote, naming the line", () => {
    expect(() => parseCsv('a\nab"c\n')).toThrow(/^Line 2: a quote inside an unquoted field/);
    expect(() => parseCsv('a\n"ab"c\n')).toThrow(/^Line 2: text after a closing quote/);
    expect(() => parseCsv('a\nb\n"open\nstill open\n')).toThrow(/^Line 3: a quoted field is never closed/);
  });

  it("stops once it has read more records than it takes", () => {
    expect(() => parseCsv("a\n1\n2\n3\n", 3)).toThrow(CsvLimitError);
    expect(parseCsv("a\n1\n2\n", 3)).toHaveLength(3);
  });

  it("reads nothing from an empty text", () => {
    expect(parseCsv("")).toEqual([]);
    expect(parseCsv("\n\r\n")).toEqual([]);
  });
});
