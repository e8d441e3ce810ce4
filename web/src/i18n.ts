// Romanian by default, English one toggle away. t(key, params) with {name} placeholders.

export type Lang = "ro" | "en";

type Dict = Record<string, string>;

const ro: Dict = {
  "app.title": "Remi online",
  "lang.toggle": "English",
  "lang.toggle.aria": "Switch to English",
  "common.close": "Închide",
  "common.cancel": "Anulează",
  "common.back": "Înapoi",
  "common.loading": "Se încarcă…",
  "common.error": "Eroare",
  "common.copy": "Copiază",
  "common.copied": "Copiat",

  "lobby.name": "Numele tău la masă",
  "lobby.name.placeholder": "de ex. Ana",
  "lobby.name.save": "Intră",
  "lobby.name.change": "Schimbă numele",
  "lobby.hello": "Bun venit, {name}!",
  "lobby.practice": "Joc de antrenament cu boți",
  "lobby.practice.hint": "O masă privată cu trei boți, pornită imediat.",
  "lobby.create": "Creează o cameră",
  "lobby.public": "Camere publice care așteaptă jucători",
  "lobby.public.none": "Nicio cameră publică nu așteaptă acum.",
  "lobby.refresh": "Reîmprospătează",
  "lobby.join": "Intră",
  "lobby.code": "Ai un cod sau un link de invitație?",
  "lobby.code.placeholder": "cod sau link",
  "lobby.code.join": "Intră cu codul",
  "lobby.room.seats": "{taken}/{seats} locuri",
  "lobby.room.by": "de {name}",
  "lobby.identity": "Același jucător pe alt dispozitiv",
  "lobby.identity.hint": "Păstrează acest cod secret: deschis pe alt dispozitiv, te face același jucător.",
  "lobby.identity.use": "Folosește un cod",
  "lobby.identity.show": "Arată codul meu",
  "session.signOut": "Deconectează-te",
  "session.signOutOthers": "Deconectează celelalte dispozitive",
  "session.othersSignedOut": "Celelalte dispozitive au fost deconectate.",
  "session.list": "Dispozitivele mele",
  "session.this": "acest dispozitiv",
  "session.signOutDevice": "Deconectează",
  "session.signedOut": "Ai fost deconectat pe acest dispozitiv.",
  "room.elsewhere": "Locul tău este jucat acum pe alt dispozitiv sau în alt tab.",
  "room.elsewhere.hint": "Aici nu mai primești mutările, ca să nu joci din două locuri deodată.",
  "room.elsewhere.take": "Joacă aici",

  "settings.variant": "Varianta",
  "settings.seats": "Locuri",
  "settings.short": "Joc scurt (un pachet, 10 piese; doar în doi)",
  "settings.end": "Sfârșitul meciului",
  "settings.end.endless": "Fără sfârșit",
  "settings.end.rounds": "După un număr de runde",
  "settings.end.target": "La un total țintă",
  "settings.rounds": "Runde",
  "settings.target": "Puncte țintă",
  "settings.turn": "Timp pe rând",
  "settings.turn.s": "{n} s",
  "settings.public": "Publică (apare în listă)",
  "settings.private": "Privată (cu cod de invitație)",
  "settings.visibility": "Vizibilitate",
  "settings.bots": "Locurile goale sunt jucate de boți",
  "settings.botLevel": "Nivelul boților",
  "settings.bot.easy": "ușor",
  "settings.bot.normal": "mediu",
  "settings.bot.hard": "greu",
  "settings.rowDepth": "Cât de adânc se vede rândul aruncărilor",
  "settings.rowDepth.all": "tot rândul",
  "settings.jokerButton": "Butonul de joker",
  "settings.create": "Creează camera",


  "room.waiting": "Camera așteaptă jucători",
  "room.invite": "Link de invitație",
  "room.code": "Cod: {code}",
  "room.seat": "Locul {n}",
  "room.seat.free": "liber",
  "room.seat.take": "Stai aici",
  "room.seat.you": "tu",
  "room.seat.bot": "bot ({level})",
  "room.start": "Pornește meciul",
  "room.start.wait": "Așteaptă ca proprietarul camerei să pornească meciul.",
  "room.leave": "Ridică-te",
  "room.notfound": "Camera nu există sau nu ai acces la ea.",
  "room.full": "Toate locurile sunt ocupate.",
  "room.finished": "Meciul s-a încheiat.",

  "table.back": "Părăsește masa",
  "table.scores": "Scoruri",
  "table.round": "Runda {n}",
  "table.turn.you": "Rândul tău",
  "table.turn.other": "Rândul lui {name}",
  "table.phase.take": "trage din talon sau ia din rând",
  "table.phase.takeDiscard": "trage din talon sau ia ultima aruncată",
  "table.phase.build": "etalează, adaugă, apoi aruncă o piesă",
  "table.phase.first": "primul rând: doar tras și aruncat",
  "table.left": "{s} s",
  "table.stock": "Talon",
  "table.stock.count": "{n} piese în talon",
  "table.stock.draw": "Trage din talon",
  "table.atu": "Atu",
  "table.atu.taken": "luat de {name}",
  "table.row": "Rândul aruncărilor",
  "table.row.empty": "gol",
  "table.row.hidden": "+{n} ascunse",
  "table.discard": "Aruncă aici",
  "table.melds": "Formațiile de pe masă",
  "table.melds.empty": "Nimic pe masă încă",
  "table.meld": "Formația {n} ({kind})",
  "table.kind.set": "combinație",
  "table.kind.run": "scară",
  "table.kind.double": "dublă",
  "table.rack": "Tăblița ta",
  "table.slot": "Loc gol {n}",
  "table.lay": "Etalează",
  "table.lay.value": "Etalează ({value})",
  "table.lay.none": "Pune pe tăbliță {n} sau mai multe piese una lângă alta",
  "table.lay.opening": "Deschide cu {value}",
  "table.lay.missing.points": "Lipsesc {missing} puncte ({value}/{threshold})",
  "table.lay.missing.run": "Lipsește scara",
  "table.lay.missing.doubles": "Lipsesc punctele ({value}/{threshold}) sau dublele ({doubles}/{needed})",
  "table.lay.notturn": "Poți etala doar în rândul tău",
  "table.sort.suit": "După culoare",
  "table.sort.rank": "După valoare",
  "table.jokerButton": "Butonul de joker ({n})",
  "table.takeRow": "Rupe rândul",
  "table.takeRow.preview": "Vin cu ea în mână: {tiles}",
  "table.takeRow.only": "Iei doar această piesă",
  "table.takeRow.confirm": "Ia piesele",
  "table.takeRow.send": "Rupe rândul și etalează",
  "table.takeRow.need": "Pune piesa luată într-o formație adevărată",
  "table.takeDiscard": "Ia ultima aruncată",
  "table.takeDiscard.send": "Ia și etalează",
  "table.pending.cancel": "Renunță",
  "table.atu.pending": "Atuul e pe tăblița ta: etalează formația care îl conține",
  "table.you": "tu",
  "table.tiles": "{n} piese",
  "table.opened": "a deschis",
  "table.notopened": "nu a deschis",
  "table.away": "plecat",
  "table.bot": "bot",
  "table.unresponsive": "nu răspunde",
  "table.total": "total {n}",
  "table.reconnecting": "Conexiunea s-a pierdut. Reconectare…",
  "table.reconnected": "Reconectat",
  "table.waitingDeal": "Se împart piesele…",
  "table.select.hint": "Alege un loc, o formație de pe masă sau cutia de aruncări",
  "table.hint.build": "Trage piesele pe tăbliță ca să faci formații",

  "scores.title": "Foaia de scor",
  "scores.round": "Runda",
  "scores.total": "Total",
  "scores.none": "Nicio rundă încheiată încă.",
  "scores.winners": "Câștigă: {names}",

  "summary.title": "Runda s-a încheiat",
  "summary.out": "{name} a ieșit",
  "summary.stock": "Talonul s-a terminat: nimeni nu a ieșit",
  "summary.laid": "pe masă {n}",
  "summary.hand": "în mână {n}",
  "summary.bonus": "bonus {n}",
  "summary.atuPair": "perechea atuului {n}",
  "summary.mult": "×{n}",
  "summary.total": "Runda: {n}",
  "summary.continue": "Continuă",
  "summary.match": "Meciul s-a încheiat",
  "summary.note.went out": "a ieșit",
  "summary.note.opened": "a deschis",
  "summary.note.never laid a meld: flat −100": "n-a etalat nimic: −100",
  "summary.note.not opened": "nu a deschis",
  "summary.note.opened: hand": "a deschis: mâna",
  "summary.note.opened on doubles: 2 × hand": "a deschis cu duble: 2 × mâna",

  "tile.joker": "joker",
  "tile.consumed": "joker cumpărat (alb)",
  "tile.label": "{rank} de {suit}",
  "rank.1": "as", "rank.2": "2", "rank.3": "3", "rank.4": "4", "rank.5": "5", "rank.6": "6",
  "rank.7": "7", "rank.8": "8", "rank.9": "9", "rank.10": "10", "rank.11": "valet",
  "rank.12": "damă", "rank.13": "rege",
  "suit.0": "pică ♠", "suit.1": "cupă ♥", "suit.2": "caro ♦", "suit.3": "treflă ♣",
  "colour.0": "roșu ●", "colour.1": "albastru ■", "colour.2": "negru ▲", "colour.3": "galben ◆",

  "err.not_your_turn": "Nu este rândul tău.",
  "err.wrong_phase": "Nu acum: întâi trage (sau ia din rând), apoi construiește și aruncă.",
  "err.first_turn": "În primul tău rând nimic de-al tău nu ajunge pe masă: doar tras și aruncat.",
  "err.tile_not_in_hand": "Piesa nu este în mâna ta.",
  "err.invalid_meld": "Nu este o combinație sau o scară validă.",
  "err.ambiguous_meld": "Formația se poate citi în două feluri.",
  "err.too_many_jokers": "Prea mulți jokeri într-o formație.",
  "err.below_threshold": "Deschiderea nu ajunge la barem.",
  "err.run_required": "Deschiderea are nevoie de o scară.",
  "err.not_opened": "Întâi trebuie să deschizi.",
  "err.taken_tile_unused": "Piesa luată din rând trebuie folosită într-o formație nouă.",
  "err.too_deep": "Nu poți lua atât de adânc din rând.",
  "err.empty_row": "Rândul aruncărilor este gol.",
  "err.layoff_does_not_fit": "Piesa nu se potrivește la formația aceasta.",
  "err.joker_layoff": "Un joker nu poate fi adăugat la o formație.",
  "err.wrong_replacement": "Piesa nu ține locul jokerului.",
  "err.joker_consumed": "Jokerul a fost deja cumpărat o dată.",
  "err.must_keep_discard": "Trebuie să-ți rămână o piesă de aruncat.",
  "err.atu_not_going_out": "Atuul se ia doar când formația îți lasă o singură piesă.",
  "err.atu_taken": "Atuul a fost deja luat.",
  "err.joker_discard": "Nu poți arunca un joker cât mai ai alte piese.",
  "err.doubles_restricted": "Regulile dublelor nu permit mutarea aceasta.",
  "err.button_unavailable": "Butonul de joker nu este disponibil.",
  "err.round_over": "Runda s-a încheiat.",
  "err.bad_action": "Mutare greșită.",
  "err.stale_version": "Masa s-a schimbat între timp; încearcă din nou.",
  "err.not_seated": "Nu stai la această masă.",
  "err.rate_limited": "Prea multe mesaje; mai încet.",
  "err.room_closed": "Camera s-a închis.",
  "err.bad_message": "Mesaj greșit.",
  "err.network": "Serverul nu răspunde.",
  "err.not_authenticated": "Alege întâi un nume.",
  "err.played_elsewhere": "Locul este jucat pe alt dispozitiv.",
  "err.session_revoked": "Ai fost deconectat pe acest dispozitiv.",
  "err.session_not_found": "Dispozitivul nu mai este conectat.",
  "err.room_not_found": "Camera nu există.",
  "err.invalid_request": "Date greșite",
  "err.seq_reused": "Mesaj repetat.",
  "err.internal_error": "Serverul nu a putut salva mutarea; nu s-a schimbat nimic.",
  "err.invite_not_found": "Nicio cameră nu are acest cod.",
  "err.room_full": "Toate locurile camerei sunt ocupate.",
  "err.seat_taken": "Locul este ocupat.",
  "err.room_not_waiting": "Meciul a început deja; locurile nu se mai schimbă.",
  "err.not_owner": "Doar proprietarul camerei poate porni meciul.",
  "err.no_players": "Nu stă nimeni la masă.",
  "err.seats_empty": "Sunt locuri goale: așteaptă jucători sau alege boți pentru ele.",
  "err.invalid_seat": "Loc inexistent.",
  "err.invalid_token": "Codul nu este valid.",
  "err.player_not_found": "Jucătorul nu există.",
  "summary.note.closed (normal)": "a închis",
  "summary.note.closed (joker)": "a închis cu joker",
  "summary.note.closed (hand)": "a închis din mână",
  "summary.note.closed (hand_joker)": "a închis din mână, cu joker",
};

const en: Dict = {
  "app.title": "Remi online",
  "lang.toggle": "Română",
  "lang.toggle.aria": "Treci la română",
  "common.close": "Close",
  "common.cancel": "Cancel",
  "common.back": "Back",
  "common.loading": "Loading…",
  "common.error": "Error",
  "common.copy": "Copy",
  "common.copied": "Copied",

  "lobby.name": "Your name at the table",
  "lobby.name.placeholder": "e.g. Ana",
  "lobby.name.save": "Enter",
  "lobby.name.change": "Change name",
  "lobby.hello": "Welcome, {name}!",
  "lobby.practice": "Practice game against bots",
  "lobby.practice.hint": "A private table with three bots, started at once.",
  "lobby.create": "Create a room",
  "lobby.public": "Public rooms waiting for players",
  "lobby.public.none": "No public room is waiting right now.",
  "lobby.refresh": "Refresh",
  "lobby.join": "Join",
  "lobby.code": "Got an invite code or link?",
  "lobby.code.placeholder": "code or link",
  "lobby.code.join": "Join with the code",
  "lobby.room.seats": "{taken}/{seats} seats",
  "lobby.room.by": "by {name}",
  "lobby.identity": "The same player on another device",
  "lobby.identity.hint": "Keep this code secret: opened on another device, it makes you the same player.",
  "lobby.identity.use": "Use a code",
  "lobby.identity.show": "Show my code",
  "session.signOut": "Sign out",
  "session.signOutOthers": "Sign out my other devices",
  "session.othersSignedOut": "Your other devices are signed out.",
  "session.list": "My devices",
  "session.this": "this device",
  "session.signOutDevice": "Sign out",
  "session.signedOut": "You were signed out on this device.",
  "room.elsewhere": "Your seat is now played on another device or in another tab.",
  "room.elsewhere.hint": "This page no longer gets the moves, so that you never play from two places at once.",
  "room.elsewhere.take": "Play here",

  "settings.variant": "Variant",
  "settings.seats": "Seats",
  "settings.short": "Short game (one pack, 10 tiles; two players only)",
  "settings.end": "End of the match",
  "settings.end.endless": "Endless",
  "settings.end.rounds": "After a number of rounds",
  "settings.end.target": "At a target total",
  "settings.rounds": "Rounds",
  "settings.target": "Target points",
  "settings.turn": "Turn time",
  "settings.turn.s": "{n} s",
  "settings.public": "Public (listed in the lobby)",
  "settings.private": "Private (invite code)",
  "settings.visibility": "Visibility",
  "settings.bots": "Empty seats are played by bots",
  "settings.botLevel": "Bot level",
  "settings.bot.easy": "easy",
  "settings.bot.normal": "normal",
  "settings.bot.hard": "hard",
  "settings.rowDepth": "How deep the discard row is visible",
  "settings.rowDepth.all": "the whole row",
  "settings.jokerButton": "Joker button",
  "settings.create": "Create the room",


  "room.waiting": "The room is waiting for players",
  "room.invite": "Invite link",
  "room.code": "Code: {code}",
  "room.seat": "Seat {n}",
  "room.seat.free": "free",
  "room.seat.take": "Sit here",
  "room.seat.you": "you",
  "room.seat.bot": "bot ({level})",
  "room.start": "Start the match",
  "room.start.wait": "Waiting for the room's owner to start the match.",
  "room.leave": "Stand up",
  "room.notfound": "The room does not exist or you have no access to it.",
  "room.full": "Every seat is taken.",
  "room.finished": "The match is over.",

  "table.back": "Leave the table",
  "table.scores": "Scores",
  "table.round": "Round {n}",
  "table.turn.you": "Your turn",
  "table.turn.other": "{name}'s turn",
  "table.phase.take": "draw from the stock or take from the row",
  "table.phase.takeDiscard": "draw from the stock or take the last discard",
  "table.phase.build": "lay, lay off, then discard a tile",
  "table.phase.first": "first turn: draw and discard only",
  "table.left": "{s} s",
  "table.stock": "Stock",
  "table.stock.count": "{n} tiles in the stock",
  "table.stock.draw": "Draw from the stock",
  "table.atu": "Atu",
  "table.atu.taken": "taken by {name}",
  "table.row": "Discard row",
  "table.row.empty": "empty",
  "table.row.hidden": "+{n} hidden",
  "table.discard": "Discard here",
  "table.melds": "Melds on the table",
  "table.melds.empty": "Nothing on the table yet",
  "table.meld": "Meld {n} ({kind})",
  "table.kind.set": "set",
  "table.kind.run": "run",
  "table.kind.double": "double",
  "table.rack": "Your rack",
  "table.slot": "Empty slot {n}",
  "table.lay": "Lay",
  "table.lay.value": "Lay ({value})",
  "table.lay.none": "Put {n} or more tiles side by side on the rack",
  "table.lay.opening": "Open with {value}",
  "table.lay.missing.points": "{missing} points missing ({value}/{threshold})",
  "table.lay.missing.run": "A run is missing",
  "table.lay.missing.doubles": "Points ({value}/{threshold}) or doubles ({doubles}/{needed}) missing",
  "table.lay.notturn": "You can lay only in your turn",
  "table.sort.suit": "By suit",
  "table.sort.rank": "By rank",
  "table.jokerButton": "Joker button ({n})",
  "table.takeRow": "Break the row",
  "table.takeRow.preview": "Coming into your hand with it: {tiles}",
  "table.takeRow.only": "You take just this tile",
  "table.takeRow.confirm": "Take the tiles",
  "table.takeRow.send": "Break the row and lay",
  "table.takeRow.need": "Put the taken tile into a real formation",
  "table.takeDiscard": "Take the last discard",
  "table.takeDiscard.send": "Take and lay",
  "table.pending.cancel": "Give up",
  "table.atu.pending": "The atu is on your rack: lay the formation holding it",
  "table.you": "you",
  "table.tiles": "{n} tiles",
  "table.opened": "opened",
  "table.notopened": "not opened",
  "table.away": "away",
  "table.bot": "bot",
  "table.unresponsive": "unresponsive",
  "table.total": "total {n}",
  "table.reconnecting": "Connection lost. Reconnecting…",
  "table.reconnected": "Reconnected",
  "table.waitingDeal": "Dealing…",
  "table.select.hint": "Choose a slot, a meld on the table or the discard box",
  "table.hint.build": "Drag tiles on the rack to make formations",

  "scores.title": "Score sheet",
  "scores.round": "Round",
  "scores.total": "Total",
  "scores.none": "No round finished yet.",
  "scores.winners": "Winner: {names}",

  "summary.title": "The round is over",
  "summary.out": "{name} went out",
  "summary.stock": "The stock ran out: nobody went out",
  "summary.laid": "laid {n}",
  "summary.hand": "in hand {n}",
  "summary.bonus": "bonus {n}",
  "summary.atuPair": "atu pair {n}",
  "summary.mult": "×{n}",
  "summary.total": "Round: {n}",
  "summary.continue": "Continue",
  "summary.match": "The match is over",

  "tile.joker": "joker",
  "tile.consumed": "bought-back joker (white)",
  "tile.label": "{rank} of {suit}",
  "rank.1": "ace", "rank.2": "2", "rank.3": "3", "rank.4": "4", "rank.5": "5", "rank.6": "6",
  "rank.7": "7", "rank.8": "8", "rank.9": "9", "rank.10": "10", "rank.11": "jack",
  "rank.12": "queen", "rank.13": "king",
  "suit.0": "spades ♠", "suit.1": "hearts ♥", "suit.2": "diamonds ♦", "suit.3": "clubs ♣",
  "colour.0": "red ●", "colour.1": "blue ■", "colour.2": "black ▲", "colour.3": "yellow ◆",

  "err.network": "The server does not answer.",
  "err.not_authenticated": "Choose a name first.",
  "err.room_not_found": "The room does not exist.",
  "err.invalid_request": "Invalid input",
  "err.stale_version": "The table changed meanwhile; try again.",
};

let lang: Lang = (() => {
  try {
    const saved = localStorage.getItem("remi.lang");
    if (saved === "en" || saved === "ro") return saved;
  } catch {
    /* storage unavailable */
  }
  return "ro";
})();

const listeners: Array<() => void> = [];

export function getLang(): Lang {
  return lang;
}

export function setLang(next: Lang): void {
  lang = next;
  try {
    localStorage.setItem("remi.lang", next);
  } catch {
    /* ignore */
  }
  document.documentElement.lang = next;
  for (const fn of listeners) fn();
}

export function onLangChange(fn: () => void): void {
  listeners.push(fn);
}

export function has(key: string): boolean {
  return key in (lang === "ro" ? ro : en) || key in en;
}

export function t(key: string, params: Record<string, string | number> = {}): string {
  const dict = lang === "ro" ? ro : en;
  const text = dict[key] ?? en[key] ?? ro[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name: string) =>
    name in params ? String(params[name]) : `{${name}}`,
  );
}

/** `t` with parameters that are not text (a name's element): the translation as its
 * pieces, each parameter in its place, for an element builder to append. */
export function tParts<T>(key: string, params: Record<string, string | number | T>): (string | T)[] {
  const dict = lang === "ro" ? ro : en;
  const text = dict[key] ?? en[key] ?? ro[key] ?? key;
  const out: (string | T)[] = [];
  let last = 0;
  for (const m of text.matchAll(/\{(\w+)\}/g)) {
    if (!(m[1] in params)) continue;
    out.push(text.slice(last, m.index));
    const v = params[m[1]];
    out.push(typeof v === "number" ? String(v) : v);
    last = m.index! + m[0].length;
  }
  out.push(text.slice(last));
  return out.filter((x) => x !== "");
}

/** The server's reason for a refusal, in the chosen language.
 * Romanian uses our translation of the code (the server writes English); English shows
 * the server's own message, which names the exact reason. */
export function reason(code: string | null | undefined, message: string | null | undefined): string {
  if (lang === "ro" && code && `err.${code}` in ro) {
    return ro[`err.${code}`];
  }
  if (message) return message;
  if (code && `err.${code}` in en) return en[`err.${code}`];
  if (code && `err.${code}` in ro) return ro[`err.${code}`];
  return code ?? t("common.error");
}

document.documentElement.lang = lang;
