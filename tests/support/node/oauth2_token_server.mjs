// A token endpoint for the tests: npm oauth2-mock-server (RS256 JWTs, /token, /jwks), and a control server the test
// drives. Prints one JSON line on stdout: {"issuer": <base URL>, "control": <control port>}.
// Control (POST): /expire-next (the next token is issued already expired, its answer still saying expires_in 3600),
// /down (every token request answered 503 until /up), /up; GET /state: {"issued": <tokens signed>}.
import http from 'node:http';
import { OAuth2Server } from 'oauth2-mock-server';

const server = new OAuth2Server();
await server.issuer.keys.generate('RS256');
const state = { issued: 0, expireNext: 0, down: false };

server.service.on('beforeTokenSigning', (token) => {
  if (state.down) return;
  state.issued += 1; // once per token issued
  if (state.expireNext > 0) {
    state.expireNext -= 1;
    token.payload.exp = Math.floor(Date.now() / 1000) - 60;
  }
});
server.service.on('beforeResponse', (response) => {
  if (state.down) {
    response.statusCode = 503;
    response.body = { error: 'temporarily_unavailable' };
  }
});
await server.start(0, '127.0.0.1');

const control = http.createServer((req, res) => {
  if (req.method === 'POST' && req.url === '/expire-next') state.expireNext += 1;
  else if (req.method === 'POST' && req.url === '/down') state.down = true;
  else if (req.method === 'POST' && req.url === '/up') state.down = false;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ issued: state.issued }));
});
control.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ issuer: server.issuer.url, control: control.address().port }));
});
process.stdin.on('end', () => process.exit(0)); // the test closes our stdin (or dies): stop
process.stdin.resume();
