import {
  AssetList,
  JobCreated,
  MockupGenerated,
  MockupList,
  MockupStatus,
  MockupVideoList,
} from "../schemas.js";
import { type Caller, type CallOptions, type FilePart, type OneOf, path } from "./caller.js";

export type AnimationStyle =
  | "luxury_macro"
  | "neo_noir_night"
  | "warm_lifestyle_sunset"
  | "futuristic_clean_studio"
  | "cyberpunk_showcase"
  | "film_35mm_editorial"
  | "high_fashion_runway"
  | "nature_premium"
  | "custom";

export type AssetType = "logo" | "product";

export interface MockupGenerateInput {
  productMediaId: string;
  logoMediaIds?: string[];
  /** Layer placements: their fields are not specified. */
  layers?: Record<string, unknown>[];
  instruction: string;
}

export type MockupVideoInput = { mockupId: string; aspectRatio?: "16:9" | "9:16" } & (
  | { animationStyle: Exclude<AnimationStyle, "custom">; userPrompt?: string }
  | { animationStyle: "custom"; userPrompt: string }
);

/** Exactly one way to give the image: a media id, base64 text, or a file (multipart `image`). */
export type AssetEditInput = { prompt: string; type: AssetType } & OneOf<{
  imageMediaId: string;
  imageBase64: string;
  image: FilePart;
}>;

/** Spec 4.7. */
export function mockups(c: Caller) {
  return {
    /** Synchronous: the answer carries the finished image. */
    generate: (input: MockupGenerateInput, opts?: CallOptions) =>
      c.post("/api/mockup/generate", MockupGenerated, input, opts),
    /** An 8-second advertisement video of a saved mockup. */
    video: (input: MockupVideoInput, opts?: CallOptions) =>
      c.post("/api/mockup/video", JobCreated, input, opts),
    generateAsset: (input: { prompt: string; type: AssetType }, opts?: CallOptions) =>
      c.post("/api/mockup/asset/generate", JobCreated, input, opts),
    async editAsset(input: AssetEditInput, opts?: CallOptions) {
      const given = [input.imageMediaId, input.imageBase64, input.image].filter(
        (v) => v !== undefined,
      ).length;
      if (given !== 1) {
        throw new TypeError(
          `editAsset takes exactly one of imageMediaId, imageBase64 and image (got ${given})`,
        );
      }
      return c.post("/api/mockup/asset/edit", JobCreated, input, opts);
    },
    list: async (opts?: CallOptions) => (await c.get("/api/mockups", MockupList, opts)).mockups,
    listAssets: async (opts?: CallOptions) => (await c.get("/api/mockup/assets", AssetList, opts)).assets,
    listVideos: async (opts?: CallOptions) =>
      (await c.get("/api/mockup/videos", MockupVideoList, opts)).videos,
    /** Asset and video jobs (mockup generation itself is synchronous). */
    status: (jobId: string, opts?: CallOptions) =>
      c.get(path`/api/mockup/${jobId}/status`, MockupStatus, opts),
  };
}
