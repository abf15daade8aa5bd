// The host page: show only the seats of the number of players chosen.
"use strict";

function showSeats() {
  const players = Number(document.getElementById("players").value);
  for (const row of document.querySelectorAll(".rf-seat-row")) {
    row.hidden = Number(row.dataset.seat) >= players;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  const players = document.getElementById("players");
  if (!players) return;
  players.addEventListener("change", showSeats);
  showSeats();
  const note = document.querySelector(".rf-seats-note");
  if (note) note.hidden = true;
});
