// A campaign's recipients as CSV (docs/campaigns.md, "Recipients and CSV"): UTF-8 text (a BOM is
// dropped, other encodings are refused with the line of the first byte that is not UTF-8), then
// RFC 4180 records: fields separated by commas, records by CRLF or LF, a field in double quotes may
// hold commas, line breaks and doubled quotes. Written here, not taken from npm: the parsers that
// run on Workers are larger than these few lines, and what we need of them (line numbers of
// records, strict quoting errors) is what they make hardest to get.

/** A record and the 1-based line of the file it starts on (a quoted field may span lines). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/** Why a file is not CSV we read: the message names the line. */
export class CsvError extends Error {
  constructor(
    message: string,
    readonly line: number | null,
  ) {
    super(message);
    this.name = "CsvError";
  }
}

const fatalUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The file's text: UTF-8, its BOM dropped. UTF-16 (what some spreadsheets call "Unicode text") and
 * single-byte encodings (Excel's "CSV" on Windows writes Windows-1252) are refused, naming the line
 * of the first byte that is not UTF-8, so the person can find it and save the file as "CSV UTF-8".
 */
export function decodeCsv(bytes: Uint8Array): string {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
    throw new CsvError('The CSV file is UTF-16 encoded; save it as UTF-8 ("CSV UTF-8" in spreadsheet apps) and upload it again.', null);
  const body = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  try {
    return fatalUtf8.decode(body);
  } catch {
    throw new CsvError(
      `The CSV file is not UTF-8: line ${firstBadLine(body)} has bytes of another encoding (Windows-1252 or Latin-1?); save it as UTF-8 ("CSV UTF-8" in spreadsheet apps) and upload it again.`,
      firstBadLine(body),
    );
  }
}

/** The 1-based line holding the first byte sequence that is not UTF-8 (a line break is never inside a UTF-8 character). */
function firstBadLine(bytes: Uint8Array): number {
  let line = 1;
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 0x0a) {
      try {
        fatalUtf8.decode(bytes.subarray(start, i));
      } catch {
        return line;
      }
      line++;
      start = i + 1;
    }
  }
  return line;
}

/**
 * The records of CSV text (RFC 4180, with LF accepted as well as CRLF, and a last record without
 * a line break). Blank lines are skipped. A quote inside an unquoted field, text after a closing
 * quote, or a quoted field never closed is an error naming its line. `maxRecords`: parsing stops
 * with an error once more records than that are read (the caller's row limit plus its header).
 */
export function parseCsv(text: string, maxRecords = Number.POSITIVE_INFINITY): CsvRecord[] {
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = "";
  let line = 1;
  let recordLine = 1;
  let quoted = false; // inside a quoted field
  let wasQuoted = false; // the current field was quoted (so "" is an empty field, not no field)
  let i = 0;
  const endRecord = () => {
    fields.push(field);
    // A blank line is no record (but a line of one quoted empty field is).
    if (!(fields.length === 1 && field === "" && !wasQuoted)) {
      if (records.length >= maxRecords) throw new CsvLimitError(maxRecords);
      records.push({ line: recordLine, fields });
    }
    fields = [];
    field = "";
    wasQuoted = false;
  };
  while (i < text.length) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        const next = text[i + 1];
        if (next !== undefined && next !== "," && next !== "\n" && next !== "\r")
          throw new CsvError(`Line ${line}: text after a closing quote; a quote inside a quoted field is written twice ("").`, line);
        i++;
        continue;
      }
      if (ch === "\n") line++;
      field += ch;
      i++;
      continue;
    }
    if (ch === ",") {
      fields.push(field);
      field = "";
      wasQuoted = false;
      i++;
    } else if (ch === "\r" || ch === "\n") {
      endRecord();
      i += ch === "\r" && text[i + 1] === "\n" ? 2 : 1;
      line++;
      recordLine = line;
    } else if (ch === '"') {
      if (field !== "")
        throw new CsvError(
          `Line ${line}: a quote inside an unquoted field; put the whole field in quotes and write the quote twice ("").`,
          line,
        );
      quoted = true;
      wasQuoted = true;
      i++;
    } else {
      field += ch;
      i++;
    }
  }
  if (quoted) throw new CsvError(`Line ${recordLine}: a quoted field is never closed.`, recordLine);
  if (field !== "" || fields.length > 0 || wasQuoted) endRecord();
  return records;
}

/** More records than the caller takes: parsing stopped there. */
export class CsvLimitError extends CsvError {
  constructor(readonly maxRecords: number) {
    super(`The CSV file has more than ${maxRecords.toLocaleString("en-US")} lines of records.`, null);
    this.name = "CsvLimitError";
  }
}
