import { ShopError, shopErrorStatus, toShopError } from "@kirimbayar/example-shop-domain";
import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from "@nestjs/common";
import type { Response } from "express";

/** Answers {@link ShopError}s and kirimbayar client errors with the shop's status and body, like the other shops. */
@Catch()
export class ShopErrorFilter implements ExceptionFilter {
  readonly #logger = new Logger("Shop");

  catch(error: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (error instanceof HttpException) {
      const status = error.getStatus();
      const code = status === 404 ? "not_found" : "invalid_request";
      res.status(status).json(new ShopError(code, error.message).toJSON());
      return;
    }
    let shopError: ShopError;
    try {
      shopError = toShopError(error);
    } catch {
      this.#logger.error(error);
      res.status(500).json({ error: { code: "internal_error", message: "Something went wrong" } });
      return;
    }
    res.status(shopErrorStatus(shopError)).json(shopError.toJSON());
  }
}
