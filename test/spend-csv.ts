import { expect } from "vitest";

/** A row of the spending export (src/core/render/spend-csv.ts), as a spreadsheet shows it. */
export interface ExportRow {
  time: string;
  person: string;
  personId: string;
  channel: string;
  channelId: string;
  kind: string;
  command: string;
  credits: string;
  jobId: string;
  serviceJobId: string;
  status: string;
}

const HEADER = "time,person,person id,channel,channel id,kind,command,credits,job id,service job id,status";

/**
 * The export's rows. A cell the export guarded with an apostrophe (an id of digits, or a job id
 * starting with "-", which a spreadsheet would take for a formula) is read without it, as the
 * sheet shows it: one job id in 64 starts with "-".
 */
export function exportRows(csv: string): ExportRow[] {
  const [header, ...lines] = csv.split("\r\n").filter(Boolean);
  expect(header).toBe(HEADER);
  return lines.map((line) => {
    const cells = line.split(",").map((cell) => cell.replace(/^'(?=[=+\-@\t\r\d])/, ""));
    const [time, person, personId, channel, channelId, kind, command, credits, jobId, serviceJobId, status] =
      cells.map((cell) => cell ?? "");
    return {
      time: time!,
      person: person!,
      personId: personId!,
      channel: channel!,
      channelId: channelId!,
      kind: kind!,
      command: command!,
      credits: credits!,
      jobId: jobId!,
      serviceJobId: serviceJobId!,
      status: status!,
    };
  });
}
