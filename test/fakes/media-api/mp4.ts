import { Readable } from "node:stream";

/** Default size of a result video: small, yet with an mdat so the file has a body. */
export const SMALL_VIDEO_BYTES = 4096;
const FILLER = Buffer.alloc(64 * 1024);

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length);
  header.write(type, 4, "latin1");
  return Buffer.concat([header, body]);
}

function fullBox(type: string, flags: number, ...payload: Buffer[]): Buffer {
  const versionAndFlags = Buffer.alloc(4);
  versionAndFlags.writeUInt32BE(flags & 0xffffff); // version 0
  return box(type, versionAndFlags, ...payload);
}

function u32(...values: number[]): Buffer {
  const out = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => {
    out.writeUInt32BE(v, i * 4);
  });
  return out;
}

const UNITY_MATRIX = u32(0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000);

/**
 * ftyp + moov describing one 64x64 video track of `seconds`: a structurally valid ISO-BMFF
 * header (file(1) reports "ISO Media, MP4 Base Media"). The track has no samples: the emulator has
 * no encoder, and clients only store, forward or link the file.
 */
function header(seconds: number): Buffer {
  const timescale = 1000;
  const duration = Math.round(seconds * timescale);
  const ftyp = box(
    "ftyp",
    Buffer.from("isom", "latin1"),
    u32(0x200),
    Buffer.from("isomiso2avc1mp41", "latin1"),
  );
  const mvhd = fullBox(
    "mvhd",
    0,
    u32(0, 0, timescale, duration, 0x10000),
    Buffer.from([1, 0]),
    Buffer.alloc(10),
    UNITY_MATRIX,
    Buffer.alloc(24),
    u32(2),
  );
  const tkhd = fullBox(
    "tkhd",
    3,
    u32(0, 0, 1, 0, duration),
    Buffer.alloc(16),
    UNITY_MATRIX,
    u32(64 << 16, 64 << 16),
  );
  const mdhd = fullBox("mdhd", 0, u32(0, 0, timescale, duration), Buffer.from([0x55, 0xc4, 0, 0]));
  const hdlr = fullBox(
    "hdlr",
    0,
    u32(0),
    Buffer.from("vide", "latin1"),
    Buffer.alloc(12),
    Buffer.from("VideoHandler\0", "latin1"),
  );
  const dinf = box("dinf", fullBox("dref", 0, u32(1), fullBox("url ", 1)));
  const stbl = box(
    "stbl",
    fullBox("stsd", 0, u32(0)),
    fullBox("stts", 0, u32(0)),
    fullBox("stsc", 0, u32(0)),
    fullBox("stsz", 0, u32(0, 0)),
    fullBox("stco", 0, u32(0)),
  );
  const minf = box("minf", fullBox("vmhd", 1, Buffer.alloc(8)), dinf, stbl);
  const moov = box("moov", mvhd, box("trak", tkhd, box("mdia", mdhd, hdlr, minf)));
  return Buffer.concat([ftyp, moov]);
}

/**
 * An MP4 of exactly `totalBytes` (or the smallest valid size), streamed: the mdat body reuses
 * one shared filler buffer, so a 100 MB answer never exists in memory.
 */
export function mp4Stream(totalBytes: number, seconds = 8): { size: number; stream: Readable } {
  const head = header(seconds);
  const size = Math.max(totalBytes, head.length + 8);
  const mdatHeader = Buffer.alloc(8);
  mdatHeader.writeUInt32BE(size - head.length);
  mdatHeader.write("mdat", 4, "latin1");
  function* chunks(): Generator<Buffer> {
    yield Buffer.concat([head, mdatHeader]);
    for (let left = size - head.length - 8; left > 0; left -= FILLER.length) {
      yield left >= FILLER.length ? FILLER : FILLER.subarray(0, left);
    }
  }
  return { size, stream: Readable.from(chunks(), { objectMode: false }) };
}
