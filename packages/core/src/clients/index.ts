export {
  createClients,
  KIRIMBAYAR_CLIENT_CLASSES,
  type KirimbayarClientName,
  type KirimbayarClients,
  type KirimbayarClientsOptions,
} from "./create-clients.js";
