/** How many decisions the agent page's decisions card shows at a time (the server page reads the first). */
export const DECISIONS_PER_PAGE = 20;
