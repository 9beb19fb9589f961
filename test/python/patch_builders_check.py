"""The official client's patch builders whose paths key arrays DataHub's patch templates key (data product assets,
schema fields and their tags and terms, structured property entity types, form prompts and actors, data job
fine-grained lineage and domains), each applied and read back with DataHubGraph.

Usage: <venv>/bin/python patch_builders_check.py <service url> <unique suffix>
Prints one JSON object: per builder what it read back, or {"error": ...}.
"""

import json, sys, warnings
warnings.filterwarnings("ignore")
from datahub.emitter.mcp import MetadataChangeProposalWrapper
from datahub.ingestion.graph.client import DataHubGraph, DatahubClientConfig
from datahub.metadata import schema_classes as m
from datahub.specific.dataproduct import DataProductPatchBuilder
from datahub.specific.dataset import DatasetPatchBuilder
from datahub.specific.datajob import DataJobPatchBuilder
from datahub.specific.form import FormPatchBuilder
from datahub.specific.structured_property import StructuredPropertyPatchBuilder

url, suffix = sys.argv[1], sys.argv[2]
graph = DataHubGraph(DatahubClientConfig(server=url))
out = {}
def run(name, fn):
    try:
        out[name] = fn()
    except Exception as e:
        out[name] = {"error": str(e)[:300]}

ds = "urn:li:dataset:(urn:li:dataPlatform:hive,pt_%s,PROD)" % suffix
other = "urn:li:dataset:(urn:li:dataPlatform:hive,pt_other_%s,PROD)" % suffix
def emit(builder):
    for mcp in builder.build():
        graph.emit(mcp)

def product():
    dp = "urn:li:dataProduct:pt_%s" % suffix
    graph.emit(MetadataChangeProposalWrapper(entityUrn=dp, aspect=m.DataProductPropertiesClass(name="p")))
    emit(DataProductPatchBuilder(dp).add_asset(ds).add_asset(other))
    emit(DataProductPatchBuilder(dp).remove_asset(other))
    return [a.destinationUrn for a in graph.get_aspect(dp, m.DataProductPropertiesClass).assets]
run("dataProduct assets", product)

def fields():
    emit(DatasetPatchBuilder(ds).for_field("email").add_tag(m.TagAssociationClass(tag="urn:li:tag:pii")).add_term(m.GlossaryTermAssociationClass(urn="urn:li:glossaryTerm:Email")).parent())
    emit(DatasetPatchBuilder(ds).for_field("email").add_tag(m.TagAssociationClass(tag="urn:li:tag:gdpr")).remove_tag("urn:li:tag:pii").parent())
    info = graph.get_aspect(ds, m.EditableSchemaMetadataClass).editableSchemaFieldInfo
    return [[f.fieldPath, [t.tag for t in f.globalTags.tags], [t.urn for t in f.glossaryTerms.terms]] for f in info]
run("field tags and terms", fields)

def prop():
    sp = "urn:li:structuredProperty:pt_%s" % suffix
    graph.emit(MetadataChangeProposalWrapper(entityUrn=sp, aspect=m.StructuredPropertyDefinitionClass(qualifiedName="pt_%s" % suffix, valueType="urn:li:dataType:datahub.string", entityTypes=["urn:li:entityType:datahub.dataset"])))
    emit(StructuredPropertyPatchBuilder(sp).add_entity_type("urn:li:entityType:datahub.chart"))
    return graph.get_aspect(sp, m.StructuredPropertyDefinitionClass).entityTypes
run("structured property entity types", prop)

def form():
    f = "urn:li:form:pt_%s" % suffix
    graph.emit(MetadataChangeProposalWrapper(entityUrn=f, aspect=m.FormInfoClass(name="f", type=m.FormTypeClass.COMPLETION, prompts=[m.FormPromptClass(id="p1", title="one", type=m.FormPromptTypeClass.STRUCTURED_PROPERTY, structuredPropertyParams=m.StructuredPropertyParamsClass(urn="urn:li:structuredProperty:x"))])))
    emit(FormPatchBuilder(f).add_prompt(m.FormPromptClass(id="p2", title="two", type=m.FormPromptTypeClass.STRUCTURED_PROPERTY, structuredPropertyParams=m.StructuredPropertyParamsClass(urn="urn:li:structuredProperty:y"))).add_assigned_user("urn:li:corpuser:pt"))
    info = graph.get_aspect(f, m.FormInfoClass)
    return {"prompts": [p.id for p in info.prompts], "users": info.actors.users}
run("form prompts and users", form)

def job():
    j = "urn:li:dataJob:(urn:li:dataFlow:(airflow,pt_%s,prod),task)" % suffix
    fgl = m.FineGrainedLineageClass(upstreamType=m.FineGrainedLineageUpstreamTypeClass.FIELD_SET, upstreams=["urn:li:schemaField:(%s,a)" % other], downstreamType=m.FineGrainedLineageDownstreamTypeClass.FIELD, downstreams=["urn:li:schemaField:(%s,b)" % ds])
    emit(DataJobPatchBuilder(j).add_input_dataset(other).add_output_dataset(ds).add_fine_grained_lineage(fgl))
    emit(DataJobPatchBuilder(j).add_domain(m.DomainAssociationClass(domain="urn:li:domain:pt")))
    io = graph.get_aspect(j, m.DataJobInputOutputClass)
    d = graph.get_aspect(j, m.DomainsClass)
    return {"fgl": [[f.upstreams, f.downstreams] for f in io.fineGrainedLineages or []], "domains": d.domains, "domainAssociations": [a.domain for a in d.domainAssociations or []]}
run("datajob fine-grained lineage and domain", job)
print(json.dumps(out))
