// discord-api-spec ships its zod schemas as plain JavaScript whose package "types" entry points at
// that .js file, so TypeScript finds no declarations. These are the schemas the fake uses.
declare module "discord-api-spec/zod" {
  import type { ZodMiniType } from "zod/mini";

  export const ApplicationCommandAutocompleteCallbackRequestSchema: ZodMiniType;
  export const ApplicationCommandCreateRequestSchema: ZodMiniType;
  export const ApplicationCommandResponseSchema: ZodMiniType;
  export const ApplicationCommandUpdateRequestSchema: ZodMiniType;
  export const CreateMessageInteractionCallbackRequestSchema: ZodMiniType;
  export const CreatePrivateChannelRequestSchema: ZodMiniType;
  export const IncomingWebhookRequestPartialSchema: ZodMiniType;
  export const IncomingWebhookUpdateRequestPartialSchema: ZodMiniType;
  export const InteractionCallbackResponseSchema: ZodMiniType;
  export const MessageCreateRequestSchema: ZodMiniType;
  export const MessageEditRequestPartialSchema: ZodMiniType;
  export const MessageResponseSchema: ZodMiniType;
  export const ModalInteractionCallbackRequestSchema: ZodMiniType;
  export const UpdateMessageInteractionCallbackRequestSchema: ZodMiniType;
  export const UserResponseSchema: ZodMiniType;
}
