-- Knowledge bases (docs/knowledge.md). The passages' embeddings are pgvector's vector(512) with an
-- HNSW index where the server has pgvector (Neon, PGlite with its pgvector extension); a server
-- without it (Debian's PostgreSQL on the CI machines) gets real[] and an exact cosine distance
-- under the same operator, so the same queries run on both ("Where the vectors live").
-- knowledge_embedding(text) reads pgvector's text form into whichever type the column is.
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
    CREATE EXTENSION IF NOT EXISTS vector;
  END IF;
END $$;--> statement-breakpoint
CREATE TABLE "knowledge_bases" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "knowledge_chunks" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"knowledge_base_id" uuid NOT NULL,
	"document_id" uuid NOT NULL,
	"position" integer NOT NULL,
	"heading" text DEFAULT '' NOT NULL,
	"content" text NOT NULL,
	"tokens" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "knowledge_documents" (
	"id" uuid PRIMARY KEY NOT NULL,
	"organization_id" uuid NOT NULL,
	"knowledge_base_id" uuid NOT NULL,
	"name" text NOT NULL,
	"source" text NOT NULL,
	"url" text,
	"content_type" text NOT NULL,
	"size_bytes" integer NOT NULL,
	"content_hash" text NOT NULL,
	"object_key" text,
	"status" text DEFAULT 'processing' NOT NULL,
	"error" text,
	"chunk_count" integer DEFAULT 0 NOT NULL,
	"embedded_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agents" ADD COLUMN "knowledge" jsonb DEFAULT '{"knowledgeBaseIds":[],"topK":3,"maxDistance":null,"retrieval":"every_turn"}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "knowledge_bases" ADD CONSTRAINT "knowledge_bases_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "knowledge_chunks" ADD CONSTRAINT "knowledge_chunks_document_id_knowledge_documents_id_fk" FOREIGN KEY ("document_id") REFERENCES "public"."knowledge_documents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "knowledge_bases_org_id_key" ON "knowledge_bases" USING btree ("organization_id","id");--> statement-breakpoint
ALTER TABLE "knowledge_documents" ADD CONSTRAINT "knowledge_documents_base_fk" FOREIGN KEY ("organization_id","knowledge_base_id") REFERENCES "public"."knowledge_bases"("organization_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "knowledge_chunks_document_idx" ON "knowledge_chunks" USING btree ("document_id","position");--> statement-breakpoint
CREATE INDEX "knowledge_chunks_base_idx" ON "knowledge_chunks" USING btree ("knowledge_base_id");--> statement-breakpoint
CREATE INDEX "knowledge_documents_base_idx" ON "knowledge_documents" USING btree ("knowledge_base_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "knowledge_documents_hash_key" ON "knowledge_documents" USING btree ("knowledge_base_id","content_hash");--> statement-breakpoint
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') THEN
    ALTER TABLE "knowledge_chunks" ADD COLUMN "embedding" vector(512);
    EXECUTE 'CREATE FUNCTION knowledge_embedding(text) RETURNS vector(512) LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURN $1::vector(512)';
    CREATE INDEX "knowledge_chunks_embedding_idx" ON "knowledge_chunks" USING hnsw ("embedding" vector_cosine_ops);
    -- A filtered search (one workspace's knowledge bases) keeps scanning the index until it has
    -- enough rows (pgvector 0.8): without it, a small knowledge base among large ones finds too few.
    BEGIN
      EXECUTE format('ALTER DATABASE %I SET hnsw.iterative_scan = relaxed_order', current_database());
      -- This session too: an embedded server (PGlite) has only the one.
      SET hnsw.iterative_scan = relaxed_order;
    EXCEPTION WHEN OTHERS THEN
      RAISE NOTICE 'hnsw.iterative_scan not set (%): filtered searches may find fewer passages than asked', SQLERRM;
    END;
  ELSE
    ALTER TABLE "knowledge_chunks" ADD COLUMN "embedding" real[];
    EXECUTE 'CREATE FUNCTION knowledge_embedding(text) RETURNS real[] LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURN translate($1, ''[]'', ''{}'')::real[]';
    EXECUTE $f$CREATE FUNCTION knowledge_cosine_distance(a real[], b real[]) RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE
      RETURN (SELECT 1 - sum(x * y) / nullif(sqrt(sum(x * x)) * sqrt(sum(y * y)), 0) FROM unnest(a, b) AS t(x, y))$f$;
    CREATE OPERATOR <=> (LEFTARG = real[], RIGHTARG = real[], FUNCTION = knowledge_cosine_distance, COMMUTATOR = <=>);
  END IF;
END $$;
