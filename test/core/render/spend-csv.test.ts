import { describe, expect, it } from "vitest";
import { spendCsv } from "../../../src/core/render/spend-csv.js";
import type { SpendRow } from "../../../src/core/spend/model.js";

const row: SpendRow = {
  at: "2026-03-04T10:15:00.000Z",
  userId: "U123",
  channelId: "C9",
  kind: "image",
  command: "image.generate",
  credits: 4,
  jobId: "job_1",
  serviceJobId: "svc-1",
  status: "done",
};

describe("spending CSV", () => {
  it("has the header, a row per job, CRLF line ends", () => {
    expect(spendCsv([row, { ...row, jobId: "job_2", credits: 2.5 }])).toBe(
      "time,person,channel,kind,command,credits,job id,service job id,status\r\n" +
        "2026-03-04T10:15:00.000Z,U123,C9,image,image.generate,4,job_1,svc-1,done\r\n" +
        "2026-03-04T10:15:00.000Z,U123,C9,image,image.generate,2.5,job_2,svc-1,done\r\n",
    );
    expect(spendCsv([])).toBe("time,person,channel,kind,command,credits,job id,service job id,status\r\n");
  });

  it("leaves credits empty while a job's cost is not known", () => {
    expect(spendCsv([{ ...row, credits: null }]).split("\r\n")[1]).toBe(
      "2026-03-04T10:15:00.000Z,U123,C9,image,image.generate,,job_1,svc-1,done",
    );
  });

  it("quotes fields with commas, quotes and line breaks, doubling the quotes (RFC 4180)", () => {
    const line = spendCsv([{ ...row, command: 'say "hi", then', status: "failed\r\nagain", jobId: "a\nb" }]);
    expect(line.slice(line.indexOf("\r\n") + 2)).toBe(
      '2026-03-04T10:15:00.000Z,U123,C9,image,"say ""hi"", then",4,"a\nb",svc-1,"failed\r\nagain"\r\n',
    );
  });

  it("makes a field a spreadsheet would run as a formula plain text, the bot's own job ids that start with - included", () => {
    const csv = spendCsv([
      {
        ...row,
        userId: '=HYPERLINK("http://x","y")',
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
      `2026-03-04T10:15:00.000Z,"'=HYPERLINK(""http://x"",""y"")",'+1,'-2,'@SUM(A1),-3,'-97CW5kB_wUn,"'\rs",ok=fine\r\n`,
    );
  });
});
