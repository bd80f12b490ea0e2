// Jest 29 as a NestJS project runs it: the node environment, where every test file (and each package it requires)
// runs in its own `vm` context while Node's built-ins (fs, timers/promises, ...) come from the main realm, so their
// promises are native promises of another realm for the code under test. No transform: the tests are plain CJS.
module.exports = {
  testEnvironment: "node",
  testMatch: ["<rootDir>/*.test.js"],
  transform: {},
};
