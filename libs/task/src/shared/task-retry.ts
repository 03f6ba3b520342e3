/**
 * Whether a failed task submit is tried again on the route's next channel, by the status it failed with
 * (new-api's shouldRetryTaskRelay, which differs from the chat relay's AutomaticRetryStatusCodes): 429 and
 * 307 yes; a 5xx yes, except 504 and 524 (a timeout may have started the task upstream); 400 and 408 no; a
 * 2xx no; any other status yes. RetryTimes, pinned channels and the auto group walk are the route's part;
 * the gateway's own refusals (a bad request, the price, the quota) never reach this.
 */
export function retriesTaskFailure(status: number): boolean {
  if (status === 429 || status === 307) return true;
  if (status >= 500 && status < 600) return status !== 504 && status !== 524;
  if (status === 400 || status === 408) return false;
  return status < 200 || status >= 300;
}
