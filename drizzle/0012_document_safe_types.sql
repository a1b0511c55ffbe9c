-- Hand-written: documents stored before their type was made safe keep no active type (HTML,
-- SVG, XML, scripts, …): the object and the message's document.mimeType become
-- application/octet-stream unless they are one of the passive types the service stores now.
UPDATE "objects" SET "mime_type" = 'application/octet-stream'
WHERE "mime_type" !~ '^(image/(png|jpeg|gif|webp)|audio/(wav|ogg|webm|mp4|mpeg|aac)|video/(mp4|quicktime|webm|ogg)|application/(pdf|zip|epub\+zip|vnd\.openxmlformats-officedocument\.(wordprocessingml\.document|spreadsheetml\.sheet|presentationml\.presentation)|vnd\.oasis\.opendocument\.(text|spreadsheet|presentation)|octet-stream)|text/(plain|csv|markdown))$';
--> statement-breakpoint
UPDATE "messages" SET "media" = jsonb_set("media", '{document,mimeType}', '"application/octet-stream"')
WHERE "type" = 'document'
  AND jsonb_typeof("media"->'document'->'mimeType') = 'string'
  AND "media"->'document'->>'mimeType' !~ '^(image/(png|jpeg|gif|webp)|audio/[a-z0-9.+-]+|video/[a-z0-9.+-]+|application/(pdf|zip|epub\+zip|vnd\.openxmlformats-officedocument\.(wordprocessingml\.document|spreadsheetml\.sheet|presentationml\.presentation)|vnd\.oasis\.opendocument\.(text|spreadsheet|presentation)|octet-stream)|text/(plain|csv|markdown))$';
