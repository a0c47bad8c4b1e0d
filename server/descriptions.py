"""What the model reads of the memory server: its instructions and the description of each tool."""

from __future__ import annotations

from server.models import EXCERPT_WIDTH, RELATED_MAX

INSTRUCTIONS = (
    "A knowledge graph for long-term memory: entities (a name, a type and observations, one fact "
    "each) linked by directed relations in active voice. To recall, search_nodes then open_nodes; "
    "read_graph with observationLimit 0 is a cheap overview. To record, create_entities, "
    "create_relations and add_observations."
)

DESCRIPTIONS = {
    "create_entities": (
        "Create new knowledge-graph entities (people, organizations, projects, concepts), each with a name, "
        "a type and observations (one fact per string). Names are exact, case-sensitive identifiers: an "
        "entity whose name already exists, or repeats an earlier one in the batch, is skipped unchanged, "
        "and only the entities actually created are returned. To add facts to an existing entity use "
        "add_observations; to link entities use create_relations."
    ),
    "create_relations": (
        "Create directed relations between existing knowledge-graph entities, in active voice from `from` "
        "to `to` (Alice knows Bob). Both endpoints must exist: if one is missing the call fails with "
        "'Entity with name X not found' and writes nothing, so create entities first with create_entities. "
        "A relation already stored or repeated in the batch is skipped; only new relations are returned."
    ),
    "add_observations": (
        "Append observations (one fact per string) to existing knowledge-graph entities. Contents an entity "
        "already holds are skipped; the result lists what was added to each. If any `entityName` does not "
        "exist the call fails with 'Entity with name X not found' and writes nothing; use create_entities "
        "for new entities, and delete_observations then add_observations to correct a fact."
    ),
    "delete_entities": (
        "Permanently delete knowledge-graph entities by exact name, with all their observations and every "
        "relation from or to them; this cannot be undone. Unknown names are skipped and listed in the "
        "message ('Deleted 1 of 2 entities. Not found: X'). Use delete_observations instead to remove "
        "single facts, and delete_relations to unlink entities but keep them."
    ),
    "delete_observations": (
        "Permanently delete specific observations from knowledge-graph entities; this cannot be undone. "
        "Each string must match exactly (case and spacing included); the entities and their relations "
        "stay. Unknown entities or observations are skipped and counted in the message ('Deleted 1 of 3 "
        "observations. Entities not found: X'). Read the exact text first with open_nodes; use "
        "delete_entities instead to remove a whole entity."
    ),
    "delete_relations": (
        "Permanently delete relations between knowledge-graph entities; this cannot be undone. Each is "
        "matched exactly on `from`, `to` and `relationType`, and the entities stay. Relations that match "
        "nothing are skipped and counted in the message ('Deleted 1 of 2 relations'). Use delete_entities "
        "instead to remove an entity together with all its relations."
    ),
    "read_graph": (
        "Read the entire knowledge graph: every entity with its observations and every relation. Use this "
        "only when you need everything; to find something prefer search_nodes, then open_nodes for the "
        "entities you need. On a large graph send `observationLimit` 0 for an overview of names, types "
        "and observation counts, and `entityTypes` to keep only some types."
    ),
    "search_nodes": (
        "Find knowledge-graph entities whose name, type or any observation contains the query as a "
        "case-insensitive substring (the whole query is one phrase, not separate keywords; an empty query "
        "matches all). Returns the matches in stored order and every relation from or to them. Use it when "
        "you don't know exact names; use open_nodes when you do. `limit` keeps only the first matches; "
        "`observationLimit` trims long observation lists."
    ),
    "open_nodes": (
        "Retrieve knowledge-graph entities by exact, case-sensitive name, with their observations and every "
        "relation from or to them, in stored order. Unknown names are skipped silently, so an empty result "
        "means none exist. Use it once search_nodes or read_graph gave you the names; read_neighborhood "
        "also shows what an entity links to, and read_observation pages through one long observation."
    ),
    "read_observation": (
        "Read part of one long observation of a knowledge-graph entity instead of all of it: a slice "
        "(`offset` and `limit`; by default the first 2,000 characters), or every match of `find` with "
        "`context` characters on each side (default 600), each window with its offset. Offsets count "
        "Unicode code points and never split a character. Use it when open_nodes shows an observation too "
        "long to load whole; `index` is its 0-based position in the entity's observations. Mixing the two "
        "modes, or `context` without `find`, is an error."
    ),
    "read_neighborhood": (
        "Read one knowledge-graph entity in full plus the entities linked to it within `depth` relation "
        f"hops (either direction), as digests: name, type, observation count and a {EXCERPT_WIDTH}-character "
        f"excerpt, nearest first, at most {RELATED_MAX}. Use it to explore around an entity, then open_nodes "
        "for the neighbours you need. status is not_found when no entity has that exact name, invalid when "
        "`depth` is outside 0 to 3."
    ),
}
