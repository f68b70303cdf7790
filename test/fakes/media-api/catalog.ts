/** Stock avatars and voices every account sees. Stock voice ids are short, as the service's are. */

export interface Avatar {
  id: string;
  name: string;
  createdAt: string;
  voiceId: string;
  isPhoto: boolean;
  /** Image of a photo avatar (ours: the spec shows no further avatar fields). */
  mediaId?: string;
}

export interface Voice {
  id: string;
  name: string;
  createdAt: string;
}

export const STOCK_VOICES: readonly Voice[] = [
  { id: "1", name: "Ava", createdAt: "2024-01-15T10:00:00.000Z" },
  { id: "2", name: "Noah", createdAt: "2024-01-15T10:00:00.000Z" },
  { id: "3", name: "Mia", createdAt: "2024-02-01T09:30:00.000Z" },
  { id: "4", name: "Liam", createdAt: "2024-02-01T09:30:00.000Z" },
];

export const STOCK_AVATARS: readonly Avatar[] = [
  {
    id: "cm2yaz9j10008l0qg9npyjgs3",
    name: "Emma",
    createdAt: "2024-03-01T12:00:00.000Z",
    voiceId: "1",
    isPhoto: false,
  },
  {
    id: "cm2yb0k4x000al0qg3h7d8w2e",
    name: "James",
    createdAt: "2024-03-01T12:00:00.000Z",
    voiceId: "2",
    isPhoto: false,
  },
  {
    id: "cm2yb1p8e000cl0qg5t9r4kxm",
    name: "Sofia",
    createdAt: "2024-04-10T08:15:00.000Z",
    voiceId: "3",
    isPhoto: false,
  },
];

/** The default voice of avatars made without their own audio. */
export const DEFAULT_VOICE_ID = "1";
