import {
  ConfigurationError,
  KIRIMBAYAR_CLIENT_CLASSES as clientClasses,
  createClients,
  type KirimbayarClientName,
  type KirimbayarClients,
} from "@kirimbayar/core";
import type { Provider } from "@nestjs/common";
import type { KirimbayarModuleOptions } from "./options.js";
import { KIRIMBAYAR_CLIENTS } from "./tokens.js";

/** The provider building every configured client once from the module options. */
export function allClientsProvider(optionsToken: string | symbol): Provider {
  return {
    provide: KIRIMBAYAR_CLIENTS,
    useFactory: (options: KirimbayarModuleOptions) => createClients(options.clients ?? {}),
    inject: [optionsToken],
  };
}

/**
 * One provider per named client, injectable by its class (`constructor(@Inject(QrisClient) qris: QrisClient)`).
 * A client named here but missing from the options fails the boot with the option to add.
 */
export function clientProviders(names: readonly KirimbayarClientName[]): Provider[] {
  return names.map((name) => ({
    provide: clientClasses[name],
    useFactory: (clients: Partial<KirimbayarClients>) => {
      const client = clients[name];
      if (client === undefined) {
        throw new ConfigurationError(
          "clients",
          `KirimbayarModule: ${clientClasses[name].name} is provided but clients.${name} is not configured.`,
        );
      }
      return client;
    },
    inject: [KIRIMBAYAR_CLIENTS],
  }));
}

/** The client names configured in `clients`, in a stable order. */
export function configuredClientNames(clients: KirimbayarModuleOptions["clients"]): KirimbayarClientName[] {
  return (Object.keys(clientClasses) as KirimbayarClientName[]).filter((name) => clients?.[name] !== undefined);
}

/** The class a client name is injected by. */
export function clientClassOf(name: KirimbayarClientName): (typeof clientClasses)[KirimbayarClientName] {
  return clientClasses[name];
}
