"""Time of the Daleks (``time_of_the_daleks_v2``): 1-4 Doctors race the Dalek automaton to Gallifrey.

=====================  ==========================================================
Import                 ``from tardis_envs import time_of_the_daleks_v2``
Agents                 ``player_0`` .. ``player_{n-1}`` (``num_players`` 1-4)
Actions                ``Discrete(611)``
Observation            ``Box(0, 4, (2963,), float32)``, the deciding seat's view
Action mask            ``int8[611]``
Chance                 the TARDIS die, story dice, every deck (Locations,
                       Dilemmas, Companions, Timey-Wimey cards, Time Anomalies)
Hidden information     other Doctors' hands, deck contents, face-down Dilemmas
Rewards                cooperative: a Dalek win gives every Doctor -1; a Doctors'
                       win gives +1 to each Doctor on Gallifrey, 0 to the others
                       (a solo Doctor: +1 / -1); truncation 0; an illegal action
                       (``illegal_action="terminate"``) gives every Doctor -1: the
                       team shares the outcome
Content                ``games/daleks/content/*.yaml``; every card listed with its
                       effect and origin in ``docs/games/time_of_the_daleks.md``
=====================  ==========================================================

The game
--------
Davros is rewriting the Doctor's timeline. The Doctors (one seat each; the base set's
First, Fourth, Eleventh and Twelfth) travel in time and space, recruit Companions and
overcome Challenges to move their TARDIS along the Web of Time (spaces 0..18: Skaro
0, where the Dalek Ship starts; Earth 2, where every TARDIS starts; Gallifrey 18,
the goal) before the Dalek Ship gets there. Each round every Doctor takes a turn, in
seat order (seats are filled in regeneration order, so the earliest Doctor starts),
then the Daleks (the automaton, not an agent) take theirs.

A Doctor turn (``describe()["phase"]`` names the stage):

1. **Prepare**: +2 Sonic Charge tokens (at most 5 held). The Doctor's and Companions'
   free Prepare effects apply at once (they only gain). Then, in any order: install an
   Equipment card into one of the console's 2 Equipment slots paying its Sonic cost
   (the Eleventh Doctor one less), uninstall one, dismiss a Companion, play Prepare /
   Anytime cards, use The Doctor's Library Card or TARDIS Tune-Up; then end the step.
2. **Travel**: stay if the Doctor's Time Zone still holds an unsolved Dilemma (or is a
   Time Anomaly Location), go to an Earth zone or a Time Anomaly Location without the
   TARDIS die, or roll it: a TARDIS face (3 of 6, ``tardis_faces``) lets the Doctor go
   to any open zone in play or draw two Location tiles and keep one; a question mark
   draws one. A new Location gets two face-down Dilemmas; the Doctor's zone's Dilemma
   is flipped. The First Doctor may draw a Location instead of rolling (and then draws
   a Timey-Wimey card).
3. **Adventure**: recruit (with an empty Companion space of the console's 3: pay a
   Sonic token or a card, draw from the Earth deck on Earth, the Alien deck elsewhere,
   either on a Time Anomaly, or search for a Linked Companion); the Challenge is the
   zone's symbols plus its Dilemma's; call another Doctor for help (pay a Sonic token
   or a card; the helper chooses to help from afar or to come); build the dice pool
   (starting dice of Doctor, Companions and Equipment; Focus icons exchange a Black die
   for a coloured one; card dice; discard to the limit: 8, 7 / 1 with help from afar,
   5 / 3 with help at the Location, one less for the Doctor being helped with a Time
   Breach; at most the physical dice: 8 Black and 3 of each colour, less imprisoned
   ones); exterminate one die per Dalek marker at the Location (on Earth: in the
   Doctor's zone); roll; re-roll (card icons NUMBER / ANY / ALL, 2 Sonic a die,
   discard a Black die to re-roll the rest); change facings (card icons, 3 Sonic a
   die); the Challenge is met when its symbols show on different dice.
4. **Resolve**: success discards the Dilemma, gives the zone's reward, removes a Dalek
   marker, makes Part-Time Companions Full-Time; failure dismisses Part-Time
   Companions, places a Dalek marker and charges the Dilemma's Fail cost (choosing
   between two where the Dilemma offers a choice). Help shares rewards and costs as the
   rulebook says.
5. **Finish**: empty Locations (no Doctor, no Dalek) other than Earth are discarded,
   empty Earth zones get a new Dilemma, the Doctor discards down to four cards.

The Dalek turn: the Ship moves one space; landing on or passing a Time Anomaly marker
(spaces 6, 9, 12, 15; first game 8, 11, 14) draws a Time Anomaly card (Location,
Task or Instant). The Daleks win when the Ship is on Gallifrey or three Dalek markers
are on Earth in the Dalek turn, or at once when a seventh Dalek marker is needed;
otherwise every Doctor whose TARDIS is on Gallifrey wins.

Story dice: Black - one face each of Running, Cunning, Diplomacy, Tactics, Science,
Strength; Green - Running x3, Diplomacy x2, Tactics; Blue - Science x3, Cunning x2,
Diplomacy; Red - Strength x3, Tactics x2, Science.

Rulings
-------
Where the rulebook is silent or ambiguous this implementation decides:

* Decks hold no order: a draw takes a uniformly random card of those left, which is
  what drawing from a shuffled deck gives. Locations, Dilemmas and (ruling) Timey-Wimey
  cards are reshuffled from their discards when empty; Companion decks never are; an
  empty Time Anomaly deck draws nothing.
* A TARDIS Console has 3 Companion spaces and 2 Equipment slots. Each Doctor starts with
  its Linked Companion (Full-Time), 2 Sonic tokens and 2 cards.
* A zone whose Dilemma was solved has no adventure left: nobody travels to it (Earth's
  are refilled at every Finish). Staying at a Location takes the Doctor to any of its
  zones with an unsolved Dilemma, without the TARDIS die; a Dilemma laid face down in
  the Doctor's own zone since its last adventure is flipped. A Doctor with nowhere to
  go waits on the console.
* Calling for help is offered once, after recruiting and before the pool is built. A
  helper who comes moves to the helped Doctor's Time Zone (free if already at the
  Location); a helper already at the Location helps there (the Ship moves two spaces
  unless it is a Time Anomaly). The Into the Dalek travel tax applies to a Doctor's own
  Travel step, when it moves to a Location: moving between Earth's zones while on Earth
  is no such move and costs nothing.
* Manipulating dice: the Doctor being helped first, then its helper; each stops when it
  wants. A Doctor that has changed a facing re-rolls no more (re-roll, then change).
  The adventure resolves the moment the Challenge is met.
* Cards usable outside their owner's turn (Any Adventure, Anytime) are offered in a
  window after the first roll, after every re-roll by a Doctor of the adventure and
  after each Doctor's manipulation, to every other Doctor in turn order holding a
  card (it may pass: being asked tells nothing about its hand) or a usable Companion
  ability; they act on either pool.
* "A card's effect once per turn": every ability row of a card is used at most once per
  turn (dice icons therefore once per adventure); a card with two alternatives (a
  split-colour focus, K-9's die of any colour) uses one of them.
* A Transfer card goes, after its effect, to another Doctor of the player's choice (in a
  solo game to the discard pile); until then it is in no deck or pile. TARDIS Tune-Up's
  switch is its transfer.
* A Dilemma discarded without ever being turned face up (its Location was discarded)
  stays unknown: observations show it in the discard pile only once seen.
* Captain Jack belongs to an expansion and is not in the base content.
* A fail cost option the Doctor cannot pay in full may not be chosen, unless no option
  can be paid; then any is chosen and paid as far as possible. Any payment the Doctor
  cannot make at all (no Sonic, no card) lapses.
* A Dalek placed "on Earth" by a card goes to the Earth zone with the fewest markers:
  one marker, whatever the number of Doctors. An instant Time Anomaly's effect acts once
  for the table or once for each Doctor, as its card says (The Stolen Earth: once; The
  Time of the Doctor: the Doctors regenerate once, then each Doctor dismisses, draws and
  gains; The Dalek Invasion of Earth: each Doctor). A Reward goes to the Doctor of the
  adventure and again to a helper who came; a Fail cost is paid by both (the rulebook).
* The Teller's Fail cost is "discard a Companion" and "move the Dalek Ship forward two
  spaces": the rulebook's text prints that second line just before the card's title,
  where The Impossible Astronaut's and The Silence's wrapped Fail lines stand.
* Regeneration: every Doctor takes the next Doctor card in regeneration order (the
  Twelfth becomes the First); Companions and cards stay.
* Decisions with a single legal action are taken automatically and never shown, unless
  some deal of the hidden cards could have given more: a Doctor holding a Timey-Wimey
  card is asked (and may have one legal action) wherever a card nobody can place (in
  the deck or a hand) would give it an option. Which seat decides next thus depends
  only on what every seat may know.

Rule options: ``num_players`` (2), ``doctors`` (``"default"``: First, Fourth, Eleventh,
Twelfth by seat; ``"random"``; or names), ``first_game`` (False), ``track_length``
(18), ``max_rounds`` (60, then truncation), ``tardis_faces`` (3). Env options:
``render_mode`` (``"ansi"``, ``"rgb_array"``, ``"human"``), ``illegal_action``.

Actions
-------
One flat ``Discrete(611)``; which part is legal depends on the stage. ``j`` is a seat
offset: seat ``(mover + j + 1) % n``; a zone is ``slot * 3 + z`` (slot 0 is Earth,
zones Past / Present / Future).

=======================  ============================================================
0                        done: end Prepare / stop manipulating / pass / recruit nobody
                         / no help / wait on the console
1 + c (30)               install Timey-Wimey card c
31 + c (30)              uninstall card c
61 + k (27)              dismiss Companion k
88 + r (192)             use ability row r (a card's effect: focus, add dice, re-roll,
                         change a face, gain / draw / move ...), or play it from hand
280 + c (30)             The Doctor's Library Card: trade it for card c
310 + j (3)              call seat j for help / give a Transfer card to j / switch
                         TARDIS Tune-Up with j
313                      stay
314 + zone (42)          travel to a zone
356 / 357 / 358          roll the TARDIS die / the First Doctor's draw / draw two
359 + 2 i + z (4)        keep drawn Location i and go to its zone z
363 + d (2)              recruit from the Earth (0) / Alien (1) deck
365 + k (27)             recruit Linked Companion k
392 / 393                help from afar / come to help
394 + colour (4)         discard a die of that colour (down to the pool limit)
398 + 4 p + colour (8)   exterminate a die (p 1: the helper's pool)
406 + d (16)             choose die d for the ability being used
422                      re-roll the chosen dice
423 + d (16)             re-roll die d for 2 Sonic
439 + 6 d + s (96)       turn die d to symbol s for 3 Sonic
535 + d (16)             discard Black die d and re-roll the rest of the pool
551 + k (2)              pay fail cost option k
553                      pay with Sonic (an obligation)
554 + c (30)             discard card c (an obligation: payment, fail cost, hand limit)
584 + k (27)             give up Companion k (discard or dismiss, as the rule says)
=======================  ============================================================

Notation is the game's words: ``"travel to mars past"``, ``"use sarah jane smith:
re-roll up to 1 green die"``, ``"choose blue die 3 (science)"``, ``"turn black die 2
(running) to cunning for 3 sonic"``, ``"come to help"``.

Observation (``observation[i]``; seats relative to the observer: 0 itself, then the
next seats in turn order)
------------------------------------------------------------------------------------
==========  ================================================================
0           round / max_rounds
1-25        the Dalek Ship's space (one-hot over spaces 0..24)
26-50       Time Anomaly markers on the track
51-150      4 relative seats x the TARDIS's space (one-hot)
151-530     4 relative seats x 95: present, Doctor (4), Sonic / 5, hand size / 8,
            on the console, Companions (27), Part-Time (27), Equipment (30),
            active Doctor, helper, deciding now
531-560     own hand (one-hot over the 30 cards)
561-2310    14 Location slots x 125: kind (empty, Earth, tile, anomaly), tile (20),
            anomaly (8), 3 zones x (face-up Dilemma (25), face down, Daleks / 3,
            Doctors here by relative seat (4))
2311-2340   Timey-Wimey discard pile
2341-2343   deck sizes: Timey-Wimey / 30, Locations / 20, Dilemmas / 25
2344-2368   Dilemma discard pile
2369-2422   Companions still in their deck (27), discarded (27)
2423-2478   8 Time Anomalies x (deck, discard, removed, Location, Task,
            progress / needed, imprisoned / 3)
2479-2484   the Challenge: symbols / 4 (2479-2695 show the adventure in progress;
            between adventures they are cleared: help "none", pool 0 manipulating)
2485-2490   conditions (Fixed Point, Time Locked, Time Breach), help (none,
            afar, come)
2491-2498   dice gathered before the roll / 8 (helped, helper x 4 colours)
2499-2690   16 dice x (present, colour (4), face (6), chosen)
2691-2695   facings changed (2 pools), manipulating pool (2), dice left to choose / 8
2696-2735   Location tiles drawn for the travel choice (2 x 20)
2736-2760   stage (one-hot, 25)
2761-2766   obligation being answered (pay, tax, card, discard companion,
            dismiss companion, hand limit)
2767-2770   last TARDIS die (question mark, TARDIS), last adventure (success, failure)
2771-2962   ability rows used this turn
==========  ================================================================

What each version of the game changed: ``CHANGELOG.md`` (this page is ``time_of_the_daleks_v2``).
"""

from __future__ import annotations

from .games.daleks.env import env, raw_env
from .games.daleks.game import SPEC, TimeOfTheDaleks

Game = TimeOfTheDaleks

__all__ = ["env", "raw_env", "Game", "SPEC"]
