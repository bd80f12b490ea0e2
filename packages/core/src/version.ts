/** Name sent in the `User-Agent` of every request. */
export const SDK_NAME = "kirimbayar";
