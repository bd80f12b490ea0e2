import { HEALTH_PATHS, liveness, type ProbeAnswer, readiness } from "@kirimbayar/example-shop-domain";
import { KirimbayarShutdown } from "@kirimbayar/nestjs";
import { Controller, Get, Inject, Res } from "@nestjs/common";
import type { Response } from "express";

/**
 * The probes: `/healthz` while the process answers, `/readyz` 503 from the moment the graceful shutdown begins
 * (`KirimbayarShutdownModule`), so that the load balancer routes new requests elsewhere.
 */
@Controller()
export class HealthController {
  constructor(@Inject(KirimbayarShutdown) private readonly shutdown: KirimbayarShutdown) {}

  @Get(HEALTH_PATHS.live.slice(1))
  live(@Res() res: Response): void {
    send(res, liveness());
  }

  @Get(HEALTH_PATHS.ready.slice(1))
  ready(@Res() res: Response): void {
    send(res, readiness(this.shutdown));
  }
}

function send(res: Response, { status, body }: ProbeAnswer): void {
  res.status(status).json(body);
}
