import { describe, expect, it } from "vitest";
import { exportFileName, spendCsv } from "../../../src/core/render/spend-csv.js";
import type { SpendRow } from "../../../src/core/spend/data/model.js";

const row: SpendRow = {
  at: "2026-03-04T10:15:00.000Z",
  userId: "U123",
  person: "ann",
  channelId: "C9",
  channel: "general",
  kind: "image",
  command: "image.generate",
  credits: 4,
  jobId: "job_1",
  serviceJobId: "svc-1",
  status: "done",
};

const HEADER =
  "time,person,person id,channel,channel id,kind,command,credits,job id,service job id,status\r\n";

describe("spending CSV", () => {
  it("has the header, a row per job with names and ids side by side, CRLF line ends", () => {
    expect(spendCsv([row, { ...row, jobId: "job_2", credits: 2.5 }])).toBe(
      `${HEADER}2026-03-04T10:15:00.000Z,ann,U123,general,C9,image,image.generate,4,job_1,svc-1,done\r\n` +
        "2026-03-04T10:15:00.000Z,ann,U123,general,C9,image,image.generate,2.5,job_2,svc-1,done\r\n",
    );
    expect(spendCsv([])).toBe(HEADER);
  });

  it("leaves credits empty while a job's cost is not known, and a name empty when it could not be read", () => {
    expect(spendCsv([{ ...row, credits: null, person: "" }]).split("\r\n")[1]).toBe(
      "2026-03-04T10:15:00.000Z,,U123,general,C9,image,image.generate,,job_1,svc-1,done",
    );
  });

  it("keeps a Discord id (all digits) as text, so a spreadsheet does not round it to a number", () => {
    const line = spendCsv([{ ...row, userId: "123456789012345678", channelId: "987654321098765432" }]);
    expect(line.split("\r\n")[1]).toBe(
      "2026-03-04T10:15:00.000Z,ann,'123456789012345678,general,'987654321098765432,image,image.generate,4,job_1,svc-1,done",
    );
  });

  it("quotes fields with commas, quotes and line breaks, doubling the quotes (RFC 4180)", () => {
    const line = spendCsv([
      { ...row, command: 'say "hi", then', status: "failed\r\nagain", jobId: "a\nb", person: "Ann, B." },
    ]);
    expect(line.slice(line.indexOf("\r\n") + 2)).toBe(
      '2026-03-04T10:15:00.000Z,"Ann, B.",U123,general,C9,image,"say ""hi"", then",4,"a\nb",svc-1,"failed\r\nagain"\r\n',
    );
  });

  it("makes a field a spreadsheet would run as a formula plain text, the bot's own job ids that start with - included", () => {
    const csv = spendCsv([
      {
        ...row,
        person: "=cmd|' /C calc'!A0",
        userId: '=HYPERLINK("http://x","y")',
        channel: "@here",
        channelId: "+1",
        kind: "-2",
        command: "@SUM(A1)",
        jobId: "-97CW5kB_wUn",
        serviceJobId: "\rs",
        status: "ok=fine",
        credits: -3,
      },
    ]);
    expect(csv.slice(csv.indexOf("\r\n") + 2)).toBe(
      `2026-03-04T10:15:00.000Z,'=cmd|' /C calc'!A0,"'=HYPERLINK(""http://x"",""y"")",'@here,'+1,'-2,'@SUM(A1),-3,'-97CW5kB_wUn,"'\rs",ok=fine\r\n`,
    );
  });
});

describe("the export's file name", () => {
  it("names a period that resets on the 1st by its month: November's is spending-2026-11.csv", () => {
    expect(exportFileName("2026-12-01")).toBe("spending-2026-11.csv");
    expect(exportFileName("2027-01-01T00:00:00Z")).toBe("spending-2026-12.csv");
  });

  it("names any other period by its last day, and one without a reset date plainly", () => {
    expect(exportFileName("2026-12-15")).toBe("spending-to-2026-12-14.csv");
    expect(exportFileName("2026-03-01")).toBe("spending-2026-02.csv");
    expect(exportFileName("open")).toBe("spending.csv");
  });
});
