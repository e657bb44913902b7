/** Ids and paths of statements that both the statements and the automations rules use (no imports: either may import it). */
export const automationRunStatementPath = (b: string, runId: string, statementId: string) =>
  `businesses/${b}/automationRuns/${runId}/statements/${statementId}`;
export const statementId = (accountId: string, month: string) => `${accountId}_${month}`;
