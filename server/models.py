"""The memory server's data model: the input bounds, the pydantic models that validate arguments and
the TypedDict shapes its tools return (the SDK turns both into the published schemas)."""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypedDict  # pydantic reads field metadata from it on Python < 3.12

# Input bounds, in code points or items. Generous for real use, small enough that one call
# cannot fill the disk or stall the server.
NAME_MAX = 500
TYPE_MAX = 200
OBSERVATION_MAX = 100_000
BATCH_MAX = 1_000
QUERY_MAX = 2_048
CONTEXT_MAX = 10_000
RELATED_MAX = 20
DEPTH_MAX = 3
# Counts and positions (limit, observationLimit, index, offset): far above any real graph, and
# inside SQLite's 64-bit integers, which a larger number would overflow.
COUNT_MAX = 1_000_000_000
EXCERPT_WIDTH = 160

GRAPH_URI = "memory://knowledge-graph"

# -- input models ---------------------------------------------------------------------------------

_ITEM = ConfigDict(strict=True, extra="ignore", json_schema_extra={"additionalProperties": False})

Name = Annotated[str, Field(strict=True, min_length=1, max_length=NAME_MAX)]
Observation = Annotated[str, Field(strict=True, max_length=OBSERVATION_MAX)]


class EntityInput(BaseModel):
    model_config = _ITEM
    name: Annotated[Name, Field(description="The name of the entity: a unique, case-sensitive identifier")]
    entityType: Annotated[str, Field(max_length=TYPE_MAX, description="The type of the entity, e.g. person")]
    observations: Annotated[
        list[Observation],
        Field(
            max_length=BATCH_MAX, description="An array of observation contents associated with the entity"
        ),
    ]


class RelationInput(BaseModel):
    model_config = ConfigDict(**_ITEM, populate_by_name=False)
    source: Annotated[
        Name, Field(alias="from", description="The name of the entity where the relation starts")
    ]
    to: Annotated[Name, Field(description="The name of the entity where the relation ends")]
    relationType: Annotated[
        str,
        Field(max_length=TYPE_MAX, description="The type of the relation, in active voice, e.g. works_at"),
    ]

    def as_dict(self) -> dict[str, str]:
        return {"from": self.source, "to": self.to, "relationType": self.relationType}


class ObservationAddition(BaseModel):
    model_config = _ITEM
    entityName: Annotated[Name, Field(description="The name of the entity to add the observations to")]
    contents: Annotated[
        list[Observation], Field(max_length=BATCH_MAX, description="An array of observation contents to add")
    ]


class ObservationDeletion(BaseModel):
    model_config = _ITEM
    entityName: Annotated[Name, Field(description="The name of the entity containing the observations")]
    observations: Annotated[
        list[Observation], Field(max_length=BATCH_MAX, description="An array of observations to delete")
    ]


ObservationLimit = Annotated[
    int | None,
    Field(
        strict=True,
        ge=0,
        le=COUNT_MAX,
        description="Return at most this many observations per entity (the first ones, in the order "
        "added), and add observationCount, the entity's total. 0 returns names, types and counts only. "
        "Omit for every observation.",
    ),
]

# -- output models --------------------------------------------------------------------------------


class EntityOutput(TypedDict):
    name: Annotated[str, Field(description="The name of the entity")]
    entityType: Annotated[str, Field(description="The type of the entity")]
    observations: Annotated[list[str], Field(description="Its observations, in the order added")]
    observationCount: NotRequired[
        Annotated[
            int, Field(description="Its total number of observations; present when observationLimit was sent")
        ]
    ]


RelationOutput = TypedDict(
    "RelationOutput",
    {
        "from": Annotated[str, Field(description="The name of the entity where the relation starts")],
        "to": Annotated[str, Field(description="The name of the entity where the relation ends")],
        "relationType": Annotated[str, Field(description="The type of the relation")],
    },
)


class GraphOutput(TypedDict):
    entities: list[EntityOutput]
    relations: list[RelationOutput]


class CreatedEntities(TypedDict):
    entities: Annotated[list[EntityOutput], Field(description="The entities actually created")]


class CreatedRelations(TypedDict):
    relations: Annotated[list[RelationOutput], Field(description="The relations actually created")]


class AddedObservations(TypedDict):
    entityName: str
    addedObservations: Annotated[list[str], Field(description="The contents that were new and were added")]


class ObservationResults(TypedDict):
    results: list[AddedObservations]


class DeleteResult(TypedDict):
    success: Annotated[bool, Field(description="True: the call ran; the message says what it found")]
    message: Annotated[
        str, Field(description="What was deleted, e.g. 'Deleted 1 of 2 entities. Not found: X'")
    ]


class TextWindow(TypedDict):
    offset: Annotated[int, Field(description="Where the window starts, in code points from the start")]
    text: str


class ObservationPart(TypedDict):
    entityName: str
    index: Annotated[int, Field(description="The observation's 0-based position in the entity's list")]
    totalLength: Annotated[int, Field(description="The observation's full length in code points")]
    offset: NotRequired[Annotated[int, Field(description="Range mode: where content starts")]]
    content: NotRequired[Annotated[str, Field(description="Range mode: the slice (empty past the end)")]]
    matchCount: NotRequired[Annotated[int, Field(description="Find mode: how many times find occurs")]]
    windows: NotRequired[
        Annotated[list[TextWindow], Field(description="Find mode: merged windows around the matches")]
    ]


class EntityDigest(TypedDict):
    name: str
    entityType: str
    observationCount: int
    excerpt: Annotated[str, Field(description=f"Its first observations, cut at {EXCERPT_WIDTH} characters")]
    hops: Annotated[int, Field(description="How many relation hops away from the entity it is")]


class Neighborhood(TypedDict):
    status: Annotated[
        Literal["ok", "not_found", "invalid"],
        Field(description="ok. not_found: no entity has that name. invalid: depth outside 0 to 3."),
    ]
    message: NotRequired[Annotated[str, Field(description="What went wrong, when status is not ok")]]
    entity: NotRequired[Annotated[EntityOutput, Field(description="The entity in full")]]
    related: NotRequired[
        Annotated[
            list[EntityDigest],
            Field(description=f"Linked entities within depth hops, nearest first, at most {RELATED_MAX}"),
        ]
    ]
    relatedTotal: NotRequired[Annotated[int, Field(description="How many linked entities there are in all")]]
    relations: NotRequired[
        Annotated[list[RelationOutput], Field(description="The relations among the returned entities")]
    ]
