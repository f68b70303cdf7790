import { json } from "../http.js";
import { api } from "../router.js";

export const accountRoutes = [api("GET", "/api/usage", (ctx) => json(ctx.state.accounts.usage(ctx.account)))];
