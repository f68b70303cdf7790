import { functionMethods } from "../functions.js";
import type { Method } from "./args.js";
import { chatMethods } from "./chat.js";
import { fileMethods } from "./files.js";
import { historyMethods } from "./history.js";
import { oauthMethods } from "./oauth.js";
import { userGroupMethods } from "./usergroups.js";
import { viewMethods } from "./views.js";
import { workspaceMethods } from "./workspace.js";

export const METHODS: Record<string, Method> = {
  ...workspaceMethods,
  ...chatMethods,
  ...viewMethods,
  ...fileMethods,
  ...historyMethods,
  ...oauthMethods,
  ...userGroupMethods,
  ...functionMethods,
};
