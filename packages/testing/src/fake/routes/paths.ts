/** Path prefix of the control API (`controlApi: true`, always on in `kirimbayar-fake serve`). */
export const CONTROL_PREFIX = "/__fake";

/** The simulator page, under the control API. */
export const SIMULATOR_PATH = `${CONTROL_PREFIX}/simulator`;
